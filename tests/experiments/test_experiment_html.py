"""The experiment section of the offline HTML report: configurations and judge, per-configuration figures (with
pass@k), regressions and fixes against the baseline, the item matrix; untrusted text escaped; ``eval show --html``."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from agent_core.cli import main
from agent_core.cli.eval_cmd import gathered
from agent_core.experiments import DatasetItem, ExperimentRunner, RunConfig, create_dataset, create_experiment
from agent_core.experiments.example import rule_model
from agent_core.experiments.report import experiment_html
from tests.experiments.helpers import file_store

EVIL = '<script>alert(1)</script><img src=x onerror="fetch(`//evil`)">'


class Tags(HTMLParser):
    """Every start tag and attribute of a document."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags_of(document: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Tags()
    parser.feed(document)
    return parser.tags


def two_experiments(tmp_path: Path) -> tuple[object, str, str]:
    store = file_store(tmp_path)
    items = [
        DatasetItem(id="add", question="What is 2 + 2?", expect={"number": 4}),
        DatasetItem(id="mul", question="What is 12 * 13? " + EVIL, expect={"number": 156}),
        DatasetItem(id="three", question="What is 3 + 3? </td><b>", expect={"number": 6}),
    ]
    create_dataset(store, "mixed", items)
    first = create_experiment(store, "mixed", [RunConfig(name="roomy " + EVIL, model="rules", max_steps=5)])
    ExperimentRunner(store, first.id, model_factory=rule_model).run()
    judge = RunConfig(name="judge", model="grader", base_url="https://judge.example/v1")
    configs = [RunConfig(name="roomy " + EVIL, model="rules", max_steps=1)]
    second = create_experiment(store, "mixed", configs, baseline=first.id, repeats=2, judge=judge)
    ExperimentRunner(store, second.id, model_factory=rule_model).run()
    return store, first.id, second.id


def test_the_report_holds_summary_changes_and_matrix_with_every_text_escaped(tmp_path: Path) -> None:
    store, _, second = two_experiments(tmp_path)
    document = experiment_html(*gathered(store, second))  # type: ignore[arg-type]
    tags = tags_of(document)
    assert not [t for t, _ in tags if t in ("script", "img", "iframe", "link", "a")]
    assert not [a for _, attrs in tags for a in attrs if a.startswith("on")]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in document and "3 + 3? &lt;/td&gt;&lt;b&gt;" in document
    assert "default-src 'none'" in document
    assert 'data-judge="grader"' in document and "judge: grader at https://judge.example/v1" in document
    summary = re.search(r'<table data-table="summary">(.*?)</table>', document, re.S)
    assert summary and "pass@2" in summary.group(1) and "consistency" in summary.group(1)
    assert "95% interval" in summary.group(1) and "p95" in summary.group(1) and "max_steps × " in summary.group(1)
    changes = re.search(r'<table data-table="changes">(.*?)</table>', document, re.S)
    assert changes and changes.group(1).count('data-kind="regression"') == 1  # "add" needs its calculator step
    assert ">add</td>" in changes.group(1) and "max_steps" in changes.group(1)
    matrix = re.search(r'<table data-table="matrix">(.*?)</table>', document, re.S)
    assert matrix and matrix.group(1).count("<tr>") == 1 + 3 * 2  # header, then 3 items × 2 repeats
    assert matrix.group(1).count('class="fail">fail</span>') == 6 and "run ses_" in matrix.group(1)


def test_eval_show_html_writes_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'experiments.db'}")
    _, first, second = two_experiments(tmp_path)
    out = tmp_path / "report.html"
    assert main(["eval", "show", second, "--html", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().err
    document = out.read_text(encoding="utf-8")
    assert document.startswith("<!DOCTYPE html>") and f"Against the baseline {first}" in document
    assert main(["eval", "show", first, "--html", str(out)]) == 0
    assert 'class="pass">pass</span>' in out.read_text(encoding="utf-8")
    assert main(["eval", "show", second, "--html", str(tmp_path / "missing" / "r.html")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_the_report_in_chinese_translates_every_heading_and_mark_but_no_recorded_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'experiments.db'}")
    store, first, second = two_experiments(tmp_path)
    out = tmp_path / "report.zh.html"
    assert main(["eval", "show", second, "--html", str(out), "--lang", "zh"]) == 0
    document = out.read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in document and "Sparrow 实验：" in document
    assert f"与基线 {first} 对比" in document and "<h3>条目</h3>" in document and "评审模型：grader" in document
    assert 'data-kind="regression">退步</td>' in document and 'class="fail">未通过</span>' in document
    for english in ("Against the baseline", "Per configuration", ">fail</span>", "judge: grader", "95% interval"):
        assert english not in document, english
    assert "What is 12 * 13? &lt;script&gt;" in document  # the recorded question is shown as it was asked
    english = experiment_html(*gathered(store, second))  # type: ignore[arg-type]
    assert [tag for tag, _ in tags_of(english)] == [tag for tag, _ in tags_of(document)]  # the same page, other words
    with pytest.raises(SystemExit) as refused:
        main(["eval", "show", second, "--html", str(out), "--lang", "fr"])
    assert refused.value.code == 2
    assert "invalid choice: 'fr'" in capsys.readouterr().err
