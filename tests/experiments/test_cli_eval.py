"""``python -m agent_core eval``: import, run with gates (exit 0/1/2), JUnit and JSON, show, compare, resume."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.cli import main
from agent_core.experiments.example import example_file
from agent_core.testing import FakeOpenAIServer
from agent_core.testing.rule_llm import rule_reply


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(rule_reply) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("SPARROW_DATA_DIR", str(tmp_path / "data"))
        yield server


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_import_run_gate_junit_show_and_compare(
    llm: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "seeds.jsonl"
    data.write_bytes(example_file())
    code, out, err = run(capsys, "eval", "datasets", "import", str(data))
    assert code == 0 and out.strip().startswith("ds_") and "imported seeds v1 (20 items)" in err
    junit = tmp_path / "results.xml"
    code, out, err = run(
        capsys, "eval", "run", "seeds", "--model", "gpt-4o-mini", "--junit", str(junit), "--min-pass-rate", "0.5"
    )
    assert code == 0, err
    assert "gpt-4o-mini · react  11/20 55%" in out and "20/20 · 55% pass" in err
    baseline = err.split("experiment: ")[1].split()[0]
    suite = ET.parse(junit).getroot()[0]
    assert (suite.get("tests"), suite.get("failures")) == ("20", "9")
    assert suite.find("testcase[@name='percent-of']/failure") is not None
    code, out, err = run(capsys, "eval", "run", "seeds", "--model", "gpt-4o-mini", "--min-pass-rate", "0.6")
    assert code == 1 and "pass rate 55.0% is below --min-pass-rate 60.0%" in err
    code, out, err = run(capsys, "eval", "run", "seeds", "--max-steps", "2", "--baseline", baseline, "--json")
    assert code == 1 and "2 regression(s) against the baseline" in err
    report = json.loads(out)
    assert [(c["kind"], c["item"]) for c in report["changes"]] == [
        ("regression", "multiply"),
        ("regression", "two-tools"),
    ]
    assert report["changes"][0]["compare"].startswith("/compare?left=ses_")
    assert report["experiment"]["configs"][0]["max_steps"] == 2
    current = report["experiment"]["id"]
    code, out, _ = run(capsys, "eval", "compare", baseline, current)
    assert code == 1 and out.count("REGRESSION") == 2
    code, out, _ = run(capsys, "eval", "show", current)
    assert code == 0 and f"against {baseline}:" in out
    code, out, _ = run(capsys, "eval", "list")
    assert code == 0 and baseline in out and current in out


def test_usage_and_configuration_problems_exit_2(
    llm: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q"}\n', encoding="utf-8")
    code, _, err = run(capsys, "eval", "datasets", "import", str(bad))
    assert (
        code == 2 and err.strip() == 'sparrow: line 1: the item has nothing to check: give an "answer" or an "expect"'
    )
    assert run(capsys, "eval", "run", "nope")[0] == 2
    config = tmp_path / "c.toml"
    config.write_text('[[config]]\nmodel = "m"\nprotocol = "smoke-signals"\n', encoding="utf-8")
    good = tmp_path / "good.jsonl"
    good.write_text('{"question": "What is 1 + 1?", "expect": {"number": 2}}\n', encoding="utf-8")
    assert run(capsys, "eval", "datasets", "import", str(good))[0] == 0
    code, _, err = run(capsys, "eval", "run", "good", "--config", str(config))
    assert code == 2
    assert "c.toml, config 1: protocol: the protocol 'smoke-signals' is not one of react, tools, json" in err
    config.write_text(
        '[[config]]\nname = "a"\nmodel = "gpt-4o-mini"\n'
        '[[config]]\nname = "b"\nmodel = "fake-model"\nprotocol = "tools"\n'
    )
    code, out, err = run(capsys, "eval", "run", "good", "--config", str(config))
    assert code == 0 and "a  " in out and "b  " in out and "1/1 100%" in out
    export = tmp_path / "out.jsonl"
    assert run(capsys, "eval", "datasets", "export", "good", "-o", str(export))[0] == 0
    assert json.loads(export.read_text(encoding="utf-8")) == {
        "id": "item-1",
        "question": "What is 1 + 1?",
        "expect": {"number": 2},
    }
