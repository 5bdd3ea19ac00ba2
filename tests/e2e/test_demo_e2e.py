"""First run with no key, in a real browser: open an example, see it labelled in Chat and Traces, present it.

Screenshots: test-artifacts/demo_example_chat.png, demo_example_traces.png (1500×950, whole page),
present_1280x720.png, present_1280x720_step.png and present_desktop_1920x1080.png (the viewport only).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_core.examples import example, open_example
from agent_core.store import SessionStore
from tests.e2e.conftest import ARTIFACTS, ROOT, _free_port, _wait_healthy, open_page, shot, wait_for_app


@pytest.fixture(scope="module")
def no_key_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """``streamlit run app.py`` with no model configured at all (a fresh machine), and its data directory."""
    data_dir = tmp_path_factory.mktemp("demo-data")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "SPARROW_", "DATABASE_URL"))}
    env.update(SPARROW_DATA_DIR=str(data_dir), STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    port = _free_port()
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]
    command += ["--server.address", "127.0.0.1", "--server.headless", "true"]
    log = (data_dir / "streamlit.log").open("wb")
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, process)
        yield url, data_dir
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


@pytest.fixture
def demo_store(no_key_app: tuple[str, Path]) -> Iterator[SessionStore]:
    """The no-key app's store, opened for one test and closed after it (the app keeps its own)."""
    store = SessionStore.open(f"sqlite:///{no_key_app[1] / 'sparrow.db'}")
    yield store
    store.close()


def tab(browser: Any, width: int, height: int) -> Any:
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(20_000)
    return context.new_page()


def test_first_run_opens_an_example_with_no_model(browser: Any, no_key_app: tuple[str, Path], tmp_path: Path) -> None:
    """Open an example with no key, see it labelled in Chat and Traces, download its report and read it offline."""
    url, _ = no_key_app
    page = tab(browser, 1500, 950)
    page.goto(url)
    wait_for_app(page)
    page.get_by_role("button", name=re.compile("Open an example session: Example · recovering")).click()
    page.get_by_text("Example session", exact=False).first.wait_for()
    page.get_by_text("√366 ≈").first.wait_for()
    wait_for_app(page)
    assert "session=ses_" in page.url
    shot(page, "demo_example_chat")
    open_page(page, "Traces", "traces")
    page.get_by_text("Example session", exact=False).first.wait_for()
    page.locator('[data-testid="stVegaLiteChart"]').first.wait_for()
    page.wait_for_timeout(500)
    shot(page, "demo_example_traces")
    assert page.locator('[data-testid="stException"]').count() == 0
    page.get_by_role("button", name="Export").click()
    with page.expect_download() as download:
        page.get_by_role("button", name="Download report (HTML)").click()
    report = tmp_path / download.value.suggested_filename
    download.value.save_as(report)
    page.context.close()
    offline = browser.new_context()
    requests: list[str] = []
    offline.on("request", lambda request: requests.append(request.url))
    viewer = offline.new_page()
    viewer.goto(report.as_uri())
    assert viewer.locator("details.step").count() == 5 and "√366" in viewer.inner_text("body")
    assert requests == [report.as_uri()] and report.name.endswith(".html")
    offline.close()


def progress(page: Any) -> str:
    return page.locator('[data-testid="stProgress"]').first.inner_text()


def test_a_shared_link_presents_the_session_and_the_keys_step_through_it(
    browser: Any, no_key_app: tuple[str, Path], demo_store: SessionStore
) -> None:
    url, _ = no_key_app
    session = open_example(demo_store, "dates")
    page = tab(browser, 1280, 720)
    page.goto(f"{url}/?session={session.id}&present=1")
    wait_for_app(page)
    page.get_by_text(example("dates").title).first.wait_for()
    assert re.search(r"/present\?", page.url) and "present=1" in page.url
    page.wait_for_function(  # the page's style hides the sidebar once it is drawn
        "() => [...document.querySelectorAll('[data-testid=stSidebar]')]"
        ".every(e => getComputedStyle(e).display === 'none')"
    )
    assert not page.locator('[data-testid="stSidebar"]').is_visible()
    first = progress(page)
    assert first.startswith("1 of ")
    for key, expected in (("ArrowRight", 2), ("ArrowRight", 3), ("Space", 4), ("PageDown", 5), ("ArrowLeft", 4)):
        page.locator("body").press(key)
        page.get_by_text(re.compile(f"^{expected} of ")).first.wait_for()
        wait_for_app(page)
    outlined = page.evaluate(
        "() => [...document.querySelectorAll('.st-key-replay_trace details')]"
        ".map(d => getComputedStyle(d).outlineStyle)"
    )
    assert outlined and outlined[-1] == "solid" and set(outlined[:-1]) <= {"none"}
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "present_1280x720_step.png"))
    page.locator("body").press("Home")
    page.get_by_text(re.compile("^1 of ")).first.wait_for()
    wait_for_app(page)
    page.screenshot(path=str(ARTIFACTS / "present_1280x720.png"))
    page.set_viewport_size({"width": 1920, "height": 1080})
    for frame in range(2, 8):
        page.locator("body").press("ArrowRight")
        page.get_by_text(re.compile(f"^{frame} of ")).first.wait_for()
        wait_for_app(page)
    page.wait_for_timeout(500)
    page.screenshot(path=str(ARTIFACTS / "present_desktop_1920x1080.png"))
    page.get_by_role("button", name="Exit presentation").click()
    page.wait_for_url(re.compile(r"/traces\?session="))
    page.context.close()


def test_compare_two_examples_side_by_side(
    browser: Any, no_key_app: tuple[str, Path], demo_store: SessionStore
) -> None:
    url, _ = no_key_app
    left, right = open_example(demo_store, "dates"), open_example(demo_store, "chinese")
    first = {s.id: demo_store.log.events(s.id)[0].run_id for s in (left, right)}
    page = tab(browser, 1500, 1900)
    page.goto(f"{url}/compare?left={left.id}:{first[left.id]}&right={right.id}:{first[right.id]}")
    wait_for_app(page)
    page.get_by_text("First divergence: step 1 / 1").wait_for()
    page.locator(".st-key-diff_step_2_right").wait_for()  # the step cards come after the summary
    page.locator('[data-testid="stTable"]').first.wait_for()
    page.get_by_text("0.175", exact=False).first.wait_for()
    wait_for_app(page)
    page.wait_for_timeout(1000)
    shot(page, "demo_compare")
    assert page.locator('[data-testid="stException"]').count() == 0
    page.context.close()
