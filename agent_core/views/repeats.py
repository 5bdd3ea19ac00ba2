"""The one-line wording of repeated-call events, shared by the CLI trace, the exports and the OpenTelemetry spans."""

from __future__ import annotations

from agent_core.events import AnswerRequested, CallRepeated
from agent_core.formatting import plural
from agent_core.views.turns import ActionView, TurnView


def repeat_line(event: CallRepeated) -> str:
    """``↺ repeat of step 1, not run again`` (or ``run again`` under ``repeat_policy`` ``allow``)."""
    what = "run again" if event.ran else "not run again"
    return f"↺ {event.tool}: repeat of step {event.first_step}, {what}"


def answer_request_line(event: AnswerRequested) -> str:
    """``⇥ answer requested after 2 repeats (the reply schema allows only a final answer)``."""
    return f"⇥ answer requested after {plural(event.repeats, 'repeat')} ({event.narrowing})"


def repeat_attributes(turn: TurnView, step: int, call_id: str) -> dict[str, int | bool]:
    """OpenTelemetry attributes of a tool call that repeated an earlier one (none for other calls)."""
    action = turn.latest_calls.get((step, call_id))
    repeated = action.repeated if action is not None else None
    if repeated is None:
        return {}
    return {"sparrow.tool.repeat_of_step": repeated.first_step, "sparrow.tool.not_run": not repeated.ran}


def run_repeat_attributes(turn: TurnView) -> dict[str, int]:
    """OpenTelemetry attributes of a run with repeated calls: how many, and after how many the answer was asked."""
    repeats = [a.repeated for a in turn.calls if isinstance(a, ActionView) and a.repeated is not None]
    asked = [s.answer_requested.repeats for s in turn.steps if s.answer_requested is not None]
    out = {"sparrow.run.repeats": len(repeats)} if repeats else {}
    return out | ({"sparrow.run.answer_requested_after": asked[0]} if asked else {})
