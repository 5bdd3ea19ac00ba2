"""The Markdown report of a session: question, steps, answer and metrics, with long texts cut sensibly."""

from __future__ import annotations

import pytest

from agent_core.events import Event
from agent_core.trace_export import ReportLimits, export_trace, to_jsonl, to_markdown, to_otlp_json
from tests.observability.builders import (
    PRICES,
    calculator_run,
    failed_run,
    finished,
    model,
    session,
    started,
    step,
    tool_end,
    tool_start,
)

CALCULATOR_REPORT = """\
# Sparrow session

1 turn · 3 steps · 3.6k tokens · $0.0078 · 1.5 s

## Turn 1: What is 6\\*7, and what weekday is 2024-13-01?

> What is 6*7, and what weekday is 2024-13-01?

*test-model · react · completed*

### Step 1

**Thought:** I need two tools.

**Action:** `calculator`

```json
{"expression": "6*7"}
```

**Observation** (250 ms):

```
42
```

**Action:** `date_calculator`

```json
{"date": "2024-13-01"}
```

**Observation** (✗ bad date · 125 ms):

```
Error: bad date
```

### Step 2

**Thought:** hmm

**Format problem:** no Action line (the model was asked to retry)

The model wrote:

```
Thought: hmm
```

### Step 3

**Thought:** done

**Final answer given.**

**Answer:**

42

| Metric | Value |
| --- | --- |
| Status | completed |
| Steps | 3 (3 model calls) |
| Tokens | 3.5k prompt · 105 completion |
| Model time | 1.2 s |
| Time to first token (mean) | 188 ms |
| Tools | 2 tool calls: calculator ×1, date\\_calculator ×1 · 1 error · 375 ms in tools |
| Format retries | 1 |
| Model errors | 0 |
| Cost | $0.0078 |
| Duration | 1.5 s |
"""


def test_report_of_one_run() -> None:
    assert to_markdown(calculator_run(), prices=PRICES) == CALCULATOR_REPORT


def test_report_of_a_session_has_an_overview_and_every_turn() -> None:
    report = to_markdown(session(), prices=PRICES, title="Demo | 2 turns")
    assert report.startswith(
        "# Demo \\| 2 turns\n\n"
        "2 turns · 4 steps · 3.6k tokens · cost — · 1.8 s\n\n"
        "| # | Question | Status | Steps | Tokens | Cost | Duration |\n"
        "| --: | --- | --- | --: | --: | --: | --: |\n"
        "| 1 | What is 6\\*7, and what weekday is 2024-13-01? | completed | 3 | 3.6k | $0.0078 | 1.5 s |\n"
        "| 2 | And now? | error | 1 | 0 | — | 250 ms |\n\n"
        "## Turn 1: What is 6\\*7"
    )
    second = report[report.index("## Turn 2: And now?") :]
    assert second.startswith(
        "## Turn 2: And now?\n\n> And now?\n\n*llama3:8b · react · error*\n\n"
        "### Step 1\n\n**Model error:** connection refused\n\n"
        "**No answer** (error): connection refused\n\n"
        "| Metric | Value |"
    )
    assert "| Cost | — |" in second


def test_long_texts_are_cut_with_a_note_and_fences_survive_backticks() -> None:
    events: list[Event] = [
        started("r", "Show me ```code```"),
        step("r", 1, 0.0),
        model("r", 1, 0.25, 250.0, (10, 2), thought="t" * 50),
        tool_start("r", 1, "c1", "weird`tool", 0.25, text="x" * 40),
        tool_end("r", 1, "c1", "weird`tool", 0.5, 250.0, "```\n" + "y" * 100),
    ]
    report = to_markdown(events, limits=ReportLimits(thought=20, arguments=15, observation=30))
    assert f"**Thought:** {'t' * 20}… [30 more characters]" in report
    assert "**Action:** ``weird`tool``" in report
    assert '```json\n{"text": "xxxxx… [37 more characters]\n```' in report
    assert "````\n```\n" + "y" * 26 + "… [74 more characters]\n````" in report
    assert report.endswith(
        "**No answer:** the run has no end recorded (still running, or interrupted).\n\n"
        "| Metric | Value |\n| --- | --- |\n| Status | unfinished |\n| Steps | 1 (1 model call) |\n"
        "| Tokens | 10 prompt · 2 completion |\n| Model time | 250 ms |\n| Time to first token (mean) | — |\n"
        "| Tools | 1 tool call: weird\\`tool ×1 · 250 ms in tools |\n"
        "| Format retries | 0 |\n| Model errors | 0 |\n| Cost | — |\n| Duration | 500 ms |\n"
    )


def test_a_step_without_a_reply_and_a_run_stopped_by_a_guard() -> None:
    events: list[Event] = [
        started("r", "q"),
        step("r", 1, 0.0),
        finished("r", 0.25, "timeout", 250.0, error="time limit of 0.25 s reached"),
    ]
    report = to_markdown(events)
    assert "### Step 1\n\n*No model reply was recorded for this step (the run was interrupted).*" in report
    assert "**No answer** (timeout): time limit of 0.25 s reached" in report
    assert to_markdown([]) == "# Sparrow session\n\nNo runs recorded.\n"


def test_export_trace_dispatches_by_format() -> None:
    events = session()
    assert export_trace(events, "jsonl") == to_jsonl(events)
    assert export_trace(events, "otel", session_id="s") == to_otlp_json(events, session_id="s")
    assert export_trace(events, "md", prices=PRICES) == to_markdown(events, prices=PRICES)
    assert export_trace(failed_run(), "md") == to_markdown(failed_run())
    with pytest.raises(ValueError, match="unknown trace format 'csv'; expected one of: jsonl, otel, md"):
        export_trace(events, "csv")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="the jsonl format takes no options"):
        export_trace(events, "jsonl", indent=2)
