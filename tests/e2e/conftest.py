"""Browser end-to-end fixtures: the fake LLM, ``streamlit run app.py`` on localhost, and Debian's chromium."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.testing import FakeOpenAIServer
from agent_core.testing.rule_llm import rule_reply

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("SPARROW_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless=new",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Everything under tests/e2e is marked ``e2e`` (``-m 'not e2e'`` skips the browser) and gets one rerun.

    On two loaded cores a browser event can still fall between a redraw's start and its first message; a test
    that fails twice in a row fails the suite, and every rerun is listed in the summary (``R``, "rerun").
    """
    for item in items:
        if "tests/e2e/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.e2e)
            item.add_marker(pytest.mark.flaky(reruns=1, reruns_delay=1))


@pytest.fixture(scope="session")
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The rule-driven fake LLM over real HTTP on 127.0.0.1."""
    with FakeOpenAIServer(rule_reply) as server:
        yield server


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_healthy(url: str, process: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"streamlit did not become healthy at {url} within {timeout:.0f} s")


@contextlib.contextmanager
def streamlit_server(
    fake: FakeOpenAIServer,
    data_dir: Path,
    log_path: Path,
    environment: dict[str, str] | None = None,
    *,
    port: int | None = None,
    options: tuple[str, ...] = (),
) -> Iterator[str]:
    """``streamlit run app.py`` on ``port`` (or a free one) with ``fake``, ``data_dir``, ``environment``, options."""
    port = port or _free_port()
    env = {
        **os.environ,
        "OPENAI_BASE_URL": fake.base_url,
        "OPENAI_API_KEY": "sk-e2e-test-key",
        "SPARROW_MODEL": "gpt-4o-mini",
        "SPARROW_DATA_DIR": str(data_dir),
        "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
    }
    env.pop("DATABASE_URL", None)
    env.update(environment or {})
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]
    command += ["--server.address", "127.0.0.1", "--server.headless", "true", *options]
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_healthy(url, process)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture(scope="session")
def app_url(fake_llm: FakeOpenAIServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app under test, shared by the browser tests (fresh data directory)."""
    logs = tmp_path_factory.mktemp("e2e-logs")
    with streamlit_server(fake_llm, tmp_path_factory.mktemp("e2e-data"), logs / "streamlit.log") as url:
        yield url


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """When a browser test fails, its report carries the page's address and visible text, and a screenshot is saved.

    A timeout alone ("waiting for … to be visible") does not say what the page showed instead; this does.
    """
    report = yield
    funcargs = getattr(item, "funcargs", {})
    tab = funcargs.get("page", funcargs.get("tab"))
    if call.when == "call" and report.failed and tab is not None:
        try:
            text = tab.evaluate("() => document.body.innerText")  # type: ignore[attr-defined]
            report.sections.append(("page at failure", f"{tab.url}\n{text[-4000:]}"))  # type: ignore[attr-defined]
            shot(tab, f"failed_{item.name}")
        except Exception as error:  # a closed page must not hide the real failure
            report.sections.append(("page at failure", f"(could not read the page: {error})"))
    return report


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """Headless Debian chromium driven by Playwright (never a downloaded browser)."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) or run .ci/run")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser: object, app_url: str) -> Iterator[object]:
    """A fresh browser context (no shared storage) with downloads enabled; 20 s default timeout."""
    context = browser.new_context(viewport={"width": 1500, "height": 950}, accept_downloads=True)  # type: ignore[attr-defined]
    context.set_default_timeout(20_000)
    tab = context.new_page()
    yield tab
    context.close()


def shot(tab: object, name: str) -> Path:
    """Save a screenshot under test-artifacts/ and return its path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    tab.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
    return path


IDLE = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const status = document.querySelector('[data-testid="stStatusWidget"]');
  return app !== null && app.dataset.testScriptState === "notRunning"
    && app.dataset.testConnectionState === "CONNECTED"
    && !(status && status.innerText.includes("Running"));
}"""


def wait_for_app(tab: object) -> None:
    """Wait until Streamlit finished its script run: the app's own script state, not only the delayed indicator."""
    tab.wait_for_selector('[data-testid="stApp"]')  # type: ignore[attr-defined]
    tab.wait_for_function(IDLE, timeout=30_000)  # type: ignore[attr-defined]


def click_until(tab: object, target: object, done: object, tries: int = 3) -> None:
    """Click ``target`` until ``done`` is visible: a click that lands while a redraw replaces the button is lost."""
    for attempt in range(tries):
        wait_for_app(tab)
        target.click()  # type: ignore[attr-defined]
        try:
            done.wait_for(timeout=8_000 if attempt < tries - 1 else 20_000)  # type: ignore[attr-defined]
            return
        except Exception:
            if attempt == tries - 1:
                raise


STILL = """(target) => new Promise(resolve => {
  const start = performance.now();
  let last = "", since = start;
  function frame() {
    const box = target.getBoundingClientRect();
    const now = performance.now(), key = [box.x, box.y, box.width, box.height].join();
    if (key !== last) { last = key; since = now; }
    if (now - since >= 250 || now - start >= 10000) { resolve(); } else { requestAnimationFrame(frame); }
  }
  frame();
})"""


def press(tab: object, target: object) -> None:
    """Click ``target`` once the app is idle, the focused field left, and the target unmoved for 250 ms.

    A click is a press and a release. On two loaded cores the field that loses focus at the press, or a popover
    or expander still opening, can move the page between the two, and the release lands on another element:
    no click at all (the browser's own events showed the press on Start, the release on a text field). A
    form's submit button cannot simply be clicked again (a second submit adds a second item), so it is
    clicked once, when nothing moves.
    """
    wait_for_app(tab)
    tab.evaluate("() => document.activeElement instanceof HTMLElement && document.activeElement.blur()")  # type: ignore[attr-defined]
    target.evaluate(STILL)  # type: ignore[attr-defined]
    target.click()  # type: ignore[attr-defined]


def run_settled(tab: object) -> None:
    """Wait until the Chat page has drawn a finished run from the store (its Stop button is gone) and is idle.

    The streamed answer is on the page a moment before the run's final redraw; a click in between would race it.
    """
    tab.get_by_role("button", name="Stop").wait_for(state="detached", timeout=30_000)  # type: ignore[attr-defined]
    wait_for_app(tab)


def open_page(tab: object, title: str, path: str) -> None:
    """Click ``title`` in the sidebar's page list and wait until the browser is on ``/path`` and the page is drawn."""
    tab.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()  # type: ignore[attr-defined]
    tab.wait_for_url(re.compile(rf"/{re.escape(path)}(\?|$)"))  # type: ignore[attr-defined]
    wait_for_app(tab)
