"""What happened in a step, in a few words: the status chips of its header, whether it opens by itself, and
the facts behind them (a repeated action, the raw arguments of a malformed native call, a retried model call).

Pure functions of the transcript; the renderer draws what they return.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

from agent_core.engine.state import CallState, RunState, StepState
from sparrow_ui.steps.repeat_status import repeat_chips
from sparrow_ui.translations.i18n import t
from sparrow_ui.translations.strings_demo import td

_HTTP_CODE = re.compile(r"\((\d{3})\)")
DEFAULT_FORMAT_RETRIES = 2
"""The agent's default, for runs recorded without the setting."""


StepStatus = Literal["running", "ok", "error", "stopped"]
"""The one state of a step, the same in the chat's trace, a replay, presentation mode and the waterfall."""
STATE_ICONS: dict[str, str] = {
    "running": "spinner",
    "ok": ":material/check_circle:",
    "error": ":material/error:",
    "stopped": ":material/stop_circle:",
}
"""The icon of each state (a step waiting for an approval is running, with a hand)."""


def step_state(turn: RunState, index: int, *, live: bool) -> StepStatus:
    """Where step ``index`` of ``turn`` stands: ``live`` means the turn may still be going (its last step runs)."""
    step = turn.steps[index]
    if live and not turn.finished and index == len(turn.steps) - 1:
        return "running"
    if stopped_here(turn, index) and not failing(turn, index):
        return "stopped"
    if failing(turn, index):
        return "error"
    return "stopped" if step.thinking else "ok"  # a reply that never came: the run was interrupted in it


def step_icon(turn: RunState, index: int, *, live: bool) -> str:
    """The icon of the step's state."""
    state = step_state(turn, index, live=live)
    if state == "running" and any(a.approval == "pending" for a in turn.steps[index].actions):
        return ":material/front_hand:"
    return STATE_ICONS[state]


@dataclass(frozen=True)
class Chip:
    """A coloured word or two in a step header."""

    text: str
    color: str
    """A Streamlit markdown colour: green, red, orange, blue, violet, gray."""

    def markdown(self) -> str:
        """The chip as a Streamlit badge (its text carries no markdown: it comes from the strings table)."""
        return f":{self.color}-badge[{self.text}]"


def step_chips(turn: RunState, index: int, *, live: bool, replay: bool = False) -> list[Chip]:
    """The chips of step ``index`` of ``turn``: what went wrong (or right), in the order it happened.

    ``replay``: a frame of a recording, where the last step is not running but shown as it was at that point.
    """
    step = turn.steps[index]
    last = index == len(turn.steps) - 1
    state = step_state(turn, index, live=live)
    chips: list[Chip] = []
    if retried := retried_after(step):
        chips.append(Chip(t("chip.model_retry", what=retried), "orange"))
    if stopped_here(turn, index):
        chips.append(Chip(t("chip.stopped"), "gray"))
    elif step.model_error:
        chips.append(Chip(t("chip.model_error"), "red"))
    if step.format_error:
        chips.append(format_chip(turn, index))
    if any(a.error for a in step.actions):
        chips.append(Chip(t("chip.tool_error"), "red"))
    if not (repeats := repeat_chips(turn, index)) and (earlier := repeated_from(turn, index)) is not None:
        chips.append(Chip(t("chip.repeated", n=earlier), "violet"))
    chips += [Chip(text, color) for text, color in repeats]
    if last and turn.status == "max_steps":
        chips.append(Chip(t("chip.step_limit"), "red"))
    if any(a.approval == "pending" for a in step.actions):
        chips.append(Chip(t("chip.waiting"), "blue"))
    elif state == "running":
        chips.append(Chip(td("chip.replaying") if replay else t("chip.running"), "blue"))
    elif state == "stopped" and not stopped_here(turn, index):
        chips.append(Chip(td("chip.interrupted"), "gray"))
    elif not chips:
        chips.append(Chip(t("chip.answer") if step.final_answer is not None else t("chip.ok"), "green"))
    return chips


def format_chip(turn: RunState, index: int) -> Chip:
    """An unusable reply: which retry it led to (``retry 1 of 2``), or that the run gave up on it."""
    number, allowed = format_retry_number(turn, index), format_retries(turn)
    if number > allowed:
        return Chip(td("chip.format_gave_up", n=number), "red")
    return Chip(td("chip.format_retry", n=number, max=allowed), "orange")


def stopped_here(turn: RunState, index: int) -> bool:
    """The user stopped the run during this step (its last)."""
    return turn.status == "cancelled" and index == len(turn.steps) - 1


def failing(turn: RunState, index: int) -> bool:
    """The step went wrong in a way worth opening it for (a user's Stop is not a failure)."""
    step = turn.steps[index]
    if stopped_here(turn, index):
        return bool(step.format_error or any(a.error for a in step.actions))
    return step.has_error or (index == len(turn.steps) - 1 and turn.status in ("max_steps", "repeated"))


def first_failing(turn: RunState) -> int:
    """The first failing step's index, else 0: where the trace of a picked turn scrolls to."""
    return next((i for i in range(len(turn.steps)) if failing(turn, i)), 0)


def format_retries(turn: RunState) -> int:
    """How many unusable replies in a row the run allowed before giving up."""
    settings = turn.run_started.settings if turn.run_started is not None else {}
    value = settings.get("max_format_retries") if isinstance(settings, dict) else None
    return value if isinstance(value, int) and value >= 0 else DEFAULT_FORMAT_RETRIES


def format_retry_number(turn: RunState, index: int) -> int:
    """Which unusable reply in a row this step's was (1 for the first)."""
    count = 0
    for step in reversed(turn.steps[: index + 1]):
        if not step.format_error:
            break
        count += 1
    return count


def retried_after(step: StepState) -> str | None:
    """``503`` (or ``503, 429``, ``no reply``...) when the step's model call got its answer only after failures.

    Two kinds count: a failed call the loop made again, and attempts the openai client repeated on its
    own inside the call that answered (``ModelFinished.retried_after``).
    """
    calls = step.model_calls
    if not calls or calls[-1].error:
        return None
    reasons: list[str] = []
    if failed := [c for c in calls[:-1] if c.error]:
        code = _HTTP_CODE.search(failed[-1].error or "")
        reasons.append(code.group(1) if code else t("chip.an_error"))
    reasons += [t("chip.no_reply") if r == "connection" else r for r in calls[-1].retried_after]
    return ", ".join(dict.fromkeys(reasons)) or None


def _signature(action: CallState) -> str:
    return action.tool + "\x00" + json.dumps(action.arguments, sort_keys=True, ensure_ascii=False, default=str)


def repeated_from(turn: RunState, index: int) -> int | None:
    """The number of an earlier step that made exactly the same tool call(s), if any."""
    actions = turn.steps[index].actions
    if not actions:
        return None
    mine = sorted(_signature(a) for a in actions)
    for earlier in reversed(turn.steps[:index]):
        if earlier.actions and sorted(_signature(a) for a in earlier.actions) == mine:
            return earlier.number
    return None


def raw_arguments(step: StepState, action: CallState) -> str | None:
    """The arguments text the model sent for a native call, when it was not a JSON object (else None)."""
    for call in reversed(step.model_calls):
        for requested in call.tool_calls:
            if requested.get("id") != action.call_id:
                continue
            raw = requested.get("arguments")
            if not isinstance(raw, str):
                return None
            try:
                parsed = json.loads(raw) if raw.strip() else {}
            except ValueError:
                return raw
            return None if isinstance(parsed, dict) else raw
    return None
