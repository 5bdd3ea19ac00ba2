"""Attachments: images as content parts, text and PDF text as context, stored with the run, refused clearly."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_core import Agent
from agent_core.engine.attachments import MAX_IMAGE_BYTES, AttachmentError, attach, attach_path
from agent_core.events import ModelFinished, RunStarted, event_from_dict, with_full_messages
from agent_core.models import OpenAIChatModel
from agent_core.store import SessionStore
from agent_core.store.files import export_session
from agent_core.testing import FakeOpenAIServer
from agent_core.trace_export import export_trace
from tests.core.helpers import answer

ROOT = Path(__file__).resolve().parents[2]
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def tiny_pdf(text: str) -> bytes:
    """A one-page PDF whose page shows ``text`` (Helvetica), with a correct cross-reference table."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def model_for(server: FakeOpenAIServer, name: str = "gpt-4o-mini") -> OpenAIChatModel:
    return OpenAIChatModel(name, base_url=server.base_url, api_key="sk-test", timeout=5)


def test_an_image_and_a_csv_reach_the_model_as_content_parts() -> None:
    files = [attach("dot.png", PNG), attach("prices.csv", b"item,price\ntea,3\n")]
    with FakeOpenAIServer([answer("I see a dot", "one dot, tea costs 3")]) as server:
        events = list(
            Agent(model_for(server), []).run("What is in the picture and what does tea cost?", attachments=files)
        )
    user = server.requests[0]["messages"][-1]
    assert user == {
        "role": "user",
        "content": [
            {
                "type": "text",
                "text": '<file name="prices.csv" type="text/csv">\nitem,price\ntea,3\n\n</file>\n\n'
                "What is in the picture and what does tea cost?",
            },
            {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(PNG).decode()}},
        ],
    }
    started = events[0]
    assert isinstance(started, RunStarted) and [a["name"] for a in started.attachments] == ["dot.png", "prices.csv"]
    assert event_from_dict(started.to_dict()) == started
    first = next(e for e in with_full_messages(events) if isinstance(e, ModelFinished))
    assert first.messages[-1] == user  # the trace's exact messages hold what was sent
    assert "data:image/png;base64," in export_trace(events, "otel", session_id="s", include_content=True)
    assert events[-1].status == "completed"


def test_text_only_questions_stay_plain_strings_and_runs_without_attachments_record_none() -> None:
    with FakeOpenAIServer([answer("ok", "fine")]) as server:
        events = list(Agent(model_for(server), []).run("Summarise", attachments=[attach("notes.md", b"# Notes\nhi")]))
        plain = list(Agent(model_for(server), []).run("hello")) if server.requests else []
    assert (
        server.requests[0]["messages"][-1]["content"]
        == '<file name="notes.md" type="text/markdown">\n# Notes\nhi\n</file>\n\nSummarise'
    )
    assert events[-1].status == "completed" and plain[0].to_dict()["attachments"] == []


def test_a_pdfs_text_is_read_with_pypdf() -> None:
    pdf = attach("memo.pdf", tiny_pdf("The launch is on Friday."))
    assert (pdf.mime, pdf.text) == ("application/pdf", "The launch is on Friday.")


@pytest.mark.parametrize(
    ("name", "content", "problem"),
    [
        ("big.png", b"\x89PNG" + b"0" * MAX_IMAGE_BYTES, "the image is 4,194,308 bytes; the limit is 4,194,304"),
        ("tool.exe", b"MZ", "files of this type cannot be attached"),
        ("broken.json", b"{not json", "not valid JSON"),
        ("latin.txt", "café".encode("latin-1"), "not UTF-8 text"),
        ("scan.pdf", b"%PDF-1.4 nothing", "not a readable PDF"),
    ],
)
def test_bad_files_are_refused_naming_the_file_and_the_problem(name: str, content: bytes, problem: str) -> None:
    with pytest.raises(AttachmentError, match=f"^{name}: .*{problem}"):
        attach(name, content)


def test_an_image_for_a_model_that_takes_none_is_refused_before_sending() -> None:
    with FakeOpenAIServer([answer("x", "y")], models=["deepseek-chat"]) as server:
        with pytest.raises(AttachmentError, match=r"the model deepseek-chat takes no images \(dot\.png\)"):
            Agent(model_for(server, "deepseek-chat"), []).run("look", attachments=[attach("dot.png", PNG)])
        assert server.requests == []


def test_attachments_are_stored_with_the_session_and_in_its_file() -> None:
    from agent_core.runtime.sessions import config_from_agent, run_in_session

    store = SessionStore.open("sqlite://")
    with FakeOpenAIServer([answer("seen", "a dot")]) as server:
        agent = Agent(model_for(server), [])
        session = store.sessions.create(config_from_agent(agent))
        list(run_in_session(store, session.id, agent, "what is this?", attachments=[attach("dot.png", PNG)]))
    started = store.log.events(session.id)[0]
    assert isinstance(started, RunStarted) and started.attachments[0]["data"] == base64.b64encode(PNG).decode()
    document = json.loads(export_session(store, session.id))
    assert document["events"][0]["attachments"][0]["name"] == "dot.png"
    store.close()


def test_the_cli_attaches_files_repeatedly(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha", encoding="utf-8")
    (tmp_path / "b.json").write_text('{"beta": 2}', encoding="utf-8")
    with FakeOpenAIServer([answer("read both", "alpha and 2")]) as server:
        env = {
            "PATH": "/usr/bin:/bin",
            "OPENAI_BASE_URL": server.base_url,
            "OPENAI_API_KEY": "sk-cli",
            "HOME": str(tmp_path),
        }
        argv = [sys.executable, "-m", "agent_core", "ask", "What do they say?", "--no-save", "--tools", "calculator",
                "--attach", str(tmp_path / "a.txt"), "--attach", str(tmp_path / "b.json")]  # fmt: skip
        done = subprocess.run(
            argv, cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60
        )
        sent = server.requests[0]["messages"][-1]["content"] if server.requests else ""
    assert done.returncode == 0, done.stderr
    assert sent.startswith('<file name="a.txt" type="text/plain">\nalpha\n</file>\n\n<file name="b.json"')
    again = [*argv[:5], "--attach", str(tmp_path / "gone.png")]
    missing = subprocess.run(again, cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
    assert missing.returncode != 0 and "gone.png: cannot read it" in missing.stderr


def test_attach_path_reads_a_file(tmp_path: Path) -> None:
    (tmp_path / "x.md").write_text("hi", encoding="utf-8")
    assert attach_path(tmp_path / "x.md").text == "hi"
