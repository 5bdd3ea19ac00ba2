"""Repeated calls in every view of a run: the CLI trace, Markdown, HTML, JSON Lines, OpenTelemetry."""

from __future__ import annotations

import io
import json

from agent_core import Agent
from agent_core.cli.trace_printer import TracePrinter
from agent_core.events import Event
from agent_core.testing import FakeOpenAIServer, ScriptedModel
from agent_core.tools import builtin_tools
from agent_core.trace_export import build_spans, read_jsonl, to_html, to_jsonl, to_markdown
from tests.core.helpers import answer, react
from tests.core.test_cli import sparrow

STEP = react("multiply", "calculator", expression="17 * 23")


def looping_run(replies: int = 4) -> list[Event]:
    """A run that repeats its first call until it is stopped (4) or answers after the narrowing (3)."""
    tail = [] if replies == 4 else [answer("ok", "391")]
    return list(Agent(ScriptedModel([STEP] * replies + tail), builtin_tools()).run("What is 17 * 23?"))


def test_the_cli_trace_says_what_happened() -> None:
    out = io.StringIO()
    for event in looping_run():
        TracePrinter(out)(event)
    lines = [line for line in out.getvalue().splitlines() if line[:1] in ("↺", "⇥", "✗")]
    assert lines[:-1] == [
        "↺ calculator: repeat of step 1, not run again",
        "↺ calculator: repeat of step 1, not run again",
        "⇥ answer requested after 2 repeats (a correction message asks for Final Answer:)",
        "↺ calculator: repeat of step 1, not run again",
    ]
    assert lines[-1].startswith("✗ repeated · 4 steps · 1 tool call · ")
    assert out.getvalue().endswith(
        'the model repeated the same call 3 times (calculator {"expression":"17 * 23"}, first made at step 1)\n'
    )


def test_ask_json_with_repeat_policy_on_the_command_line() -> None:
    step = json.dumps({"thought": "m", "action": {"tool": "calculator", "arguments": {"expression": "17 * 23"}}})
    with FakeOpenAIServer([step, step, json.dumps({"thought": "t", "final_answer": "391"})]) as server:
        done = sparrow(server, "ask", "17 * 23?", "--protocol", "json", "--no-save", "--repeat-policy", "allow")
    assert done.returncode == 0, done.stderr
    assert "↺ calculator: repeat of step 1, run again" in done.stderr and "⇥" not in done.stderr
    assert done.stdout.strip() == "391"


def test_markdown_and_html_show_the_repeats_and_the_narrowing() -> None:
    events = looping_run(3)
    markdown = to_markdown(events)
    assert markdown.count("*↺ calculator: repeat of step 1, not run again*") == 2
    assert "*⇥ answer requested after 2 repeats (a correction message asks for Final Answer:)*" in markdown
    assert '```json\n{"expression": "17 * 23"}\n```' in markdown.split("### Step 2")[1]  # the repeat's arguments
    html = to_html(events)
    assert html.count("<p class=mute data-repeat>↺ Repeat of step 1, not run again</p>") == 2
    assert "⇥ Answer requested after 2 repeats (a correction message asks for Final Answer:)" in html
    assert "↺ 重复第 1 步的调用，未再次执行" in to_html(events, lang="zh")


def test_jsonl_round_trips_the_new_events() -> None:
    events = looping_run()
    assert read_jsonl(to_jsonl(events)) == events
    kinds = [e.type for e in events]
    assert kinds.count("call_repeated") == 3 and kinds.count("answer_requested") == 1


def test_otel_spans_carry_the_repeats() -> None:
    spans = build_spans(looping_run())
    run, tools = spans[0], [s for s in spans if s.name == "execute_tool calculator"]
    assert run.attributes["error.type"] == "repeated"
    assert (run.attributes["sparrow.run.repeats"], run.attributes["sparrow.run.answer_requested_after"]) == (3, 2)
    assert [
        (s.attributes.get("sparrow.tool.repeat_of_step"), s.attributes.get("sparrow.tool.not_run")) for s in tools
    ] == [
        (None, None),
        (1, True),
        (1, True),
        (1, True),
    ]
