"""Experiments in a real browser: a dataset from one's own chat, run against two models, watched as it progresses;
then again with a tighter step limit against the first: the regressions are listed, and one's trace opens."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from agent_core.testing.rule_llm import TWO_TOOLS
from tests.e2e.conftest import open_page, press, run_settled, shot, wait_for_app


def ask(page, question: str, turns: int) -> None:  # type: ignore[no-untyped-def]
    """Ask, and wait until the ``turns``-th turn is finished with its actions drawn."""
    box = page.get_by_placeholder("Ask anything…")
    box.fill(question)
    box.press("Enter")
    expect(page.get_by_role("button", name="Add to dataset")).to_have_count(turns, timeout=60_000)
    run_settled(page)


def add_last_turn(page, dataset: str, saved: str) -> None:  # type: ignore[no-untyped-def]
    """Open the last turn's "Add to dataset", save it to ``dataset``, see ``saved``, and close the popover."""
    button = page.get_by_role("button", name="Add to dataset").last
    wait_for_app(page)
    button.click()
    body = page.locator('[data-testid="stPopoverBody"]:visible')
    expect(body).to_have_count(1)
    body.get_by_label("Dataset (a new name makes a new one)").fill(dataset)
    press(page, body.get_by_role("button", name="Add"))
    body.get_by_text(saved).wait_for()
    button.click()  # closes the popover again
    body.wait_for(state="detached")


def start_run(page, models: str, max_steps: int | None = None, baseline: str | None = None) -> None:  # type: ignore[no-untyped-def]
    main = page.get_by_test_id("stMainBlockContainer")
    if not main.get_by_label("Models (comma-separated)", exact=True).is_visible():
        main.get_by_text("Run an experiment").click()
    main = page.get_by_test_id("stForm")
    main.get_by_label("Models (comma-separated)", exact=True).fill(models)
    if max_steps is not None:
        main.get_by_label("Max steps").fill(str(max_steps))
    if baseline is not None:
        main.get_by_label("Baseline experiment").click()
        page.get_by_role("option", name=re.compile(re.escape(baseline))).click()
    press(page, main.get_by_role("button", name="Start"))


def test_dataset_from_chat_two_models_a_regression_and_its_trace(page, app_url: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(app_url)
    wait_for_app(page)
    ask(page, TWO_TOOLS, 1)
    add_last_turn(page, "From my chat", "Added to From my chat v1 (1 items).")
    ask(page, "What is 6 * 7?", 2)
    add_last_turn(page, "From my chat", "Added to From my chat v2 (2 items).")

    open_page(page, "Experiments", "experiments")
    start_run(page, "gpt-4o-mini, fake-model")
    page.get_by_text(re.compile(r"Finished: 4/4 · 100% pass")).wait_for(timeout=60_000)
    wait_for_app(page)
    main = page.get_by_test_id("stMainBlockContainer")
    expect(main.get_by_text("By configuration")).to_be_visible()
    first = page.url.split("experiment=")[1].split("&")[0]
    shot(page, "experiments_01_two_models")

    start_run(page, "gpt-4o-mini, fake-model", max_steps=2, baseline=first)
    page.get_by_text(re.compile(r"Finished: 4/4 · 50% pass")).wait_for(timeout=60_000)
    wait_for_app(page)
    regressions = main.get_by_text("regression ·")
    expect(regressions).to_have_count(2)
    shot(page, "experiments_02_regressions")
    with page.context.expect_page() as opened:
        main.get_by_role("link", name="Trace").first.click()
    trace = opened.value
    trace.wait_for_load_state()
    wait_for_app(trace)
    assert "/traces?session=ses_" in trace.url
    main = trace.get_by_test_id("stMainBlockContainer")
    main.get_by_text("step limit reached").first.wait_for(timeout=60_000)
    wait_for_app(trace)
    shot(trace, "experiments_03_regressed_trace")
