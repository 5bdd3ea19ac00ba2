"""The HTML report in Chromium: opens offline with no request at all, every step expands, prints expanded.

Screenshots: test-artifacts/report_desktop.png (1500 wide, steps expanded) and report_1280x720.png.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_core.examples import open_example
from agent_core.store import SessionStore
from agent_core.trace_export import to_html
from agent_core.views.metrics import session_metrics
from tests.e2e.conftest import shot
from tests.report.hostile import hostile_events
from tests.report.metrics_of import traces_figures


@pytest.fixture
def report(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The recovery example's report as a file, with the figures the Traces page shows for its run."""
    store = SessionStore.open("sqlite://")
    info = open_example(store, "recovery")
    events = store.log.events(info.id)
    path = tmp_path / "report.html"
    path.write_text(to_html(events, title=info.title), encoding="utf-8")
    return path, traces_figures(session_metrics(events).runs[0])


def open_offline(browser: Any, path: Path, **viewport: int) -> tuple[Any, Any, list[str]]:
    """A fresh context that records every request (and aborts any but the file itself)."""
    context = browser.new_context(viewport=viewport or {"width": 1500, "height": 950})
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    context.route("**/*", lambda route: route.abort() if route.request.url != path.as_uri() else route.continue_())
    page = context.new_page()
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return context, page, requests


def test_the_report_opens_with_no_request_and_every_step_expands(browser: Any, report: Any) -> None:
    path, figures = report
    context, page, requests = open_offline(browser, path)
    steps = page.locator("details.step")
    assert steps.count() == 5
    for index in range(steps.count()):
        step = steps.nth(index)
        assert not step.locator("pre").first.is_visible()
        step.locator("summary").click()
        assert step.get_attribute("open") is not None and step.locator("pre").first.is_visible()
    for key, value in figures.items():
        assert page.locator(f'section.turn td[data-metric="{key}"]').first.inner_text() == value, key
    shot(page, "report_desktop")
    assert requests == [path.as_uri()]
    context.close()


def test_the_report_prints_with_every_step_open(browser: Any, report: Any) -> None:
    path, _ = report
    context, page, requests = open_offline(browser, path, width=1280, height=720)
    shot(page, "report_1280x720")
    page.emulate_media(media="print")
    closed = page.locator("details.step:not([open]) pre")
    assert closed.count() > 5 and all(closed.nth(i).is_visible() for i in range(closed.count()))
    assert requests == [path.as_uri()]
    context.close()


def test_a_hostile_report_runs_nothing_and_fetches_nothing(browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "hostile.html"
    path.write_text(to_html(hostile_events(), title="hostile"), encoding="utf-8")
    context, page, requests = open_offline(browser, path)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    for summary in page.locator("summary").all():
        summary.click()
    page.wait_for_timeout(300)
    assert page.locator("script, img, iframe, object, embed").count() == 0
    assert dialogs == [] and requests == [path.as_uri()]
    context.close()
