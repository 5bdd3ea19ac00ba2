"""The HTML report shows the numbers the Traces page shows (AppTest reads the page's run summary)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from agent_core.examples import open_example
from agent_core.store import SessionStore
from agent_core.trace_export import to_html
from tests.report.test_html_report import parse

APP = str(Path(__file__).resolve().parents[2] / "app.py")
LABELS = {"Steps": "steps", "Tokens": "tokens", "Cost": "cost", "Duration": "duration"}


def report_figures(page: str) -> dict[str, str]:
    """The first turn's metrics table of the report, by data-metric key."""
    section = page.split('<section class="turn"', 1)[1]
    parser = parse(section)
    keys = [a["data-metric"] for name, a in parser.tags if name == "td" and a.get("data-metric")]
    cells = section.split('data-metric="')[1:]
    return {
        key: parse(cell.split(">", 1)[1].split("</td>", 1)[0]).text[0] for key, cell in zip(keys, cells, strict=True)
    }


def test_report_numbers_match_the_traces_page() -> None:
    store = SessionStore.open()
    info = open_example(store, "recovery")
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    at.switch_page("pages/traces.py")
    at.query_params["session"] = info.id
    at.run()
    assert not at.exception, at.exception
    shown = {LABELS[m.label]: m.value for m in at.metric if m.label in LABELS}
    assert set(shown) == set(LABELS.values())
    figures = report_figures(to_html(store.log.events(info.id), title=info.title))
    assert {key: figures[key] for key in shown} == shown
    assert figures["status"] == next(m.value for m in at.metric if m.label == "Status")
