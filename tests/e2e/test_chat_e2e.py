"""The workbench in a real browser: ask, watch the trace, save, reload, download, upload, stop, switch language."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from playwright.sync_api import expect

from agent_core.store.files import parse_document
from agent_core.testing.rule_llm import PONDER, PONDER_SECONDS, SLOW, TWO_TOOLS
from tests.core.helpers import TWO_TOOLS_ANSWER
from tests.e2e.conftest import open_page, press, run_settled, shot, wait_for_app

ANSWER = TWO_TOOLS_ANSWER


def in_chat(page, text: str):  # type: ignore[no-untyped-def]
    """``text`` inside an assistant chat message."""
    return page.get_by_role("group", name="Chat message from assistant").get_by_text(text)


def ask(page, question: str) -> None:  # type: ignore[no-untyped-def]
    box = page.get_by_placeholder("Ask anything…")
    box.fill(question)
    box.press("Enter")


def test_ask_trace_save_reload_download_upload(page, app_url: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    page.goto(app_url)
    wait_for_app(page)
    shot(page, "chat_01_empty")
    ask(page, TWO_TOOLS)
    # The answer streams in; the running step shows in the trace while it does.
    page.get_by_text("17 × 23 =", exact=False).first.wait_for()
    in_chat(page, ANSWER).wait_for()
    wait_for_app(page)
    assert re.search(r"\?session=ses_", page.url)
    main = page.get_by_test_id("stMainBlockContainer")
    main.get_by_text("2 tool calls: calculator ×1, date_calculator ×1").wait_for()
    page.get_by_test_id("stSidebarUserContent").get_by_text("2 tool calls: calculator ×1").wait_for()
    page.get_by_text("Step 1 · calculator").click()
    page.get_by_text('"expression": "17 * 23"').wait_for()
    page.get_by_text("Step 2 · date_calculator").click()
    page.get_by_text("2024-05-20 (Monday) + 150 days = 2024-10-17 (Thursday)").wait_for()
    shot(page, "chat_02_answer_and_trace")

    # Save a named snapshot.
    page.get_by_role("button", name="Save snapshot").click()
    page.get_by_label("Snapshot name").fill("demo point")
    page.get_by_label("Snapshot name").press("Enter")
    press(page, page.locator('[data-testid="stPopoverBody"]').get_by_role("button", name="Save snapshot"))
    page.get_by_text("Saved snapshot 'demo point'.").wait_for()

    # A refresh reopens the same session from the store.
    url = page.url
    page.reload()
    wait_for_app(page)
    assert page.url == url
    in_chat(page, ANSWER).wait_for()

    # Download the session file and validate it.
    with page.expect_download() as download_info:
        page.get_by_role("button", name="Download session").click()
    path = tmp_path / download_info.value.suggested_filename
    download_info.value.save_as(path)
    document = json.loads(path.read_text(encoding="utf-8"))
    dump = parse_document(path.read_bytes())
    assert document["format"] and document["version"] >= 1
    assert [s["name"] for s in document["snapshots"]] == ["demo point"]
    assert [e.type for e in dump.events].count("run_finished") == 1

    # Upload it again: a new session opens with the same conversation.
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    page.get_by_text("Imported as a new session").wait_for()
    wait_for_app(page)
    assert page.url != url
    in_chat(page, ANSWER).wait_for()
    shot(page, "chat_03_uploaded")

    # The Sessions page lists both, with the snapshot.
    open_page(page, "Sessions", "sessions")
    page.get_by_text("Snapshots (1)").first.wait_for()
    # Each session card's Open (the filter bar's multiselects have "Open" toggles of their own); waits for the drawing
    expect(page.locator('[class*="st-key-open_ses_"] button')).to_have_count(2)
    shot(page, "chat_04_sessions")


def test_a_broken_upload_is_reported_and_nothing_is_imported(page, app_url: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    page.goto(app_url)
    wait_for_app(page)
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "sparrow.session", "version": 1, "session": ', encoding="utf-8")
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(broken))
    page.get_by_text("This file cannot be imported:").wait_for()
    shot(page, "chat_05_broken_upload")
    assert "?session=" not in page.url


def test_stop_a_slow_run(page, app_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(app_url)
    wait_for_app(page)
    ask(page, SLOW)
    page.get_by_role("button", name="Stop").wait_for()
    page.get_by_text("once upon a time", exact=False).first.wait_for()
    shot(page, "chat_06_running")
    page.get_by_role("button", name="Stop").click()
    in_chat(page, "No answer (stopped).").wait_for(timeout=15_000)
    run_settled(page)
    trace = page.locator(".st-key-trace-column")
    trace.get_by_text("stopped by user").wait_for()  # the step's chip, not "running…"
    wait_for_app(page)  # drawn to the end: an absence below is not merely a late arrival
    assert trace.get_by_text("running…").count() == 0
    assert trace.get_by_text("~", exact=False).count() > 0  # the tokens of the words written so far, estimated
    shot(page, "chat_07_stopped")


def test_a_page_link_works_at_once_while_the_model_is_silent(page, app_url: str) -> None:  # type: ignore[no-untyped-def]
    """While a step waits on a slow model nothing new is drawn; a click on another page still opens it at once.

    (The chat page used to notice the click only at the run's next event: here, 15 s later.)
    """
    page.goto(app_url)
    wait_for_app(page)
    ask(page, PONDER)
    page.get_by_role("button", name="Stop").wait_for()
    clicked = time.monotonic()
    open_page(page, "Traces", "traces")
    page.get_by_text("A run of this session is in progress").wait_for()
    assert time.monotonic() - clicked < PONDER_SECONDS / 2
    open_page(page, "Chat", "")
    in_chat(page, "I have thought it over.").wait_for(timeout=PONDER_SECONDS * 2000)  # the run went on meanwhile
    run_settled(page)
    shot(page, "chat_07b_page_link_while_waiting")


def test_chinese_ui(page, app_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(app_url)
    wait_for_app(page)
    page.get_by_test_id("stSidebar").get_by_text("简体中文").click()
    page.get_by_text("追踪").first.wait_for()
    ask_box = page.get_by_placeholder("输入你的问题…")
    ask_box.fill("What is 6 * 7?")
    ask_box.press("Enter")
    in_chat(page, "The result is 42.").wait_for()
    wait_for_app(page)
    shot(page, "chat_08_chinese")


def test_approval_pauses_the_run_survives_a_refresh_and_resumes_on_approve(page, app_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(app_url)
    wait_for_app(page)
    ask(page, "Please fetch http://127.0.0.1:9/page")
    page.get_by_text("The agent wants to run fetch_url. Allow it?").wait_for()
    wait_for_app(page)
    shot(page, "chat_09_approval")
    page.reload()
    wait_for_app(page)
    page.get_by_text("The agent wants to run fetch_url. Allow it?").wait_for()
    page.get_by_role("button", name="Approve").click()
    in_chat(
        page,
        "The fetch tool said: Error: fetch_url refused",
    ).wait_for()
    wait_for_app(page)
    shot(page, "chat_10_approved")
