"""The HTML report: every untrusted text escaped, secrets masked, nothing fetched, all steps and figures there."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from agent_core.cli import main
from agent_core.examples import example, open_example
from agent_core.formatting import format_duration, format_tokens
from agent_core.store import SessionStore
from agent_core.trace_export import EXTENSIONS, FORMATS, export_trace, to_html
from agent_core.trace_export.html import CSP
from agent_core.views.metrics import session_metrics
from agent_core.views.transcript import Transcript
from tests.report.hostile import HOSTILE, SECRET, hostile_events

ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "a", "div", "section", "table",
    "tr", "th", "td", "pre", "code", "details", "summary", "span", "strong", "svg", "rect", "text", "line",
}  # fmt: skip


class Tags(HTMLParser):
    """Every start tag with its attributes, and the page's visible text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(page: str) -> Tags:
    parser = Tags()
    parser.feed(page)
    parser.close()
    return parser


@pytest.fixture(scope="module")
def hostile_page() -> str:
    return to_html(hostile_events(), title=HOSTILE)


def test_hostile_text_makes_no_markup(hostile_page: str) -> None:
    tags = parse(hostile_page).tags
    assert {name for name, _ in tags} <= ALLOWED_TAGS
    assert [name for name, _ in tags].count("style") == 1 and "script" not in {name for name, _ in tags}
    for name, attrs in tags:
        assert not any(key.startswith("on") for key in attrs), (name, attrs)
        assert "src" not in attrs and "srcset" not in attrs
        if name == "a":
            assert re.fullmatch(r"#turn-\d+", attrs.get("href") or ""), attrs
    assert "<script" not in hostile_page.lower() and "<img" not in hostile_page.lower()
    values = [v or "" for _, attrs in tags for v in attrs.values()]
    assert not [v for v in values if "javascript:" in v or "evil.example" in v]


def test_hostile_text_is_shown_as_text(hostile_page: str) -> None:
    text = "".join(parse(hostile_page).text)
    assert text.count(HOSTILE) >= 4  # title, question, thought, observation...
    assert "alert(1)" in text and "<img src=http://evil.example/x.png" in text


def test_secrets_are_masked(hostile_page: str) -> None:
    assert SECRET not in hostile_page
    assert "sk-proj-X…[masked]" in hostile_page


def test_the_page_forbids_every_request(hostile_page: str) -> None:
    meta = [a for name, a in parse(hostile_page).tags if name == "meta" and a.get("http-equiv")]
    assert meta == [{"http-equiv": "Content-Security-Policy", "content": CSP}]
    assert CSP == "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
    style = hostile_page.split("<style>", 1)[1].split("</style>", 1)[0]
    assert not re.search(r"url\(|@import|@font-face|//", style)


def test_every_step_and_call_is_a_details_section_with_its_figures() -> None:
    events = SessionStore.open("sqlite://")
    info = open_example(events, "recovery")
    page = to_html(events.log.events(info.id), title=info.title)
    tags = parse(page).tags
    steps = [a["data-step"] for name, a in tags if name == "details" and "data-step" in a]
    assert steps == ["1", "2", "3", "4", "5"]
    text = "".join(parse(page).text)
    for label in ("Thought", "Action", "Arguments", "Observation", "Tool error", "Format error", "Latency", "Cost"):
        assert label in text, label
    metrics = session_metrics(events.log.events(info.id)).runs[0]
    assert f'data-metric="steps">{metrics.steps}<' in page
    assert (
        format_duration(metrics.duration_ms) in text
        and format_tokens(metrics.usage.prompt_tokens, estimated=True) in text
    )
    assert "<svg" in page and page.count("<rect") == len(
        Transcript.from_events(events.log.events(info.id)).turns[0].calls
    )


def test_chinese_report() -> None:
    store = SessionStore.open("sqlite://")
    info = open_example(store, "chinese")
    page = to_html(store.log.events(info.id), title=info.title, lang="zh")
    assert '<html lang="zh-CN">' in page and "对话" in page and "第 1 步" in page and "星期四" in page


def test_html_is_an_export_format() -> None:
    assert "html" in FORMATS and EXTENSIONS["html"] == ".html"
    assert export_trace(hostile_events(), "html", title="x").startswith("<!DOCTYPE html>")


def test_cli_writes_the_report(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'r.db'}"
    store = SessionStore.open(db)
    info = open_example(store, "parallel")
    out = tmp_path / "report.html"
    assert main(["sessions", "export-trace", info.id, "--format", "html", "-o", str(out), "--db", db]) == 0
    page = out.read_text()
    assert example("parallel").title in page and page.count('class="step"') == 2
    assert (
        main(["sessions", "export-trace", info.id, "--format", "html", "--lang", "zh", "-o", str(out), "--db", db]) == 0
    )
    assert "第 1 轮" in out.read_text()
