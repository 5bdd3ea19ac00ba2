"""The edit a fork makes at its step, and the events it starts from: the original's copied, then the edit.

``plan_fork`` reads the original run's events and returns what the fork records before anything live
happens: every event of the steps before the fork point (its run id changed to the fork's, stamped with the time
of the copy: the figures it records, such as a model call's latency, are the original's), then the
edited step — a tool result replaced, or the model's decision rewritten (thought, action and arguments,
or a final answer) — and what is left to do: calls to run at that step, an answer to finish with, or the
step to continue from. Nothing here calls a model or a tool.
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_core.events import (
    Event,
    FinalAnswer,
    ModelDelta,
    ModelFinished,
    ModelSampled,
    OutputFlagged,
    RunFinished,
    RunForked,
    RunResumed,
    RunStarted,
    ToolFinished,
)
from agent_core.tools.runner import CallRequest

EditKind = Literal["observation", "action", "thought", "answer", "decision", "settings"]
_NOT_COPIED = (RunStarted, RunResumed, RunFinished, FinalAnswer, ModelSampled, RunForked, ModelDelta)


@dataclass(frozen=True)
class StepEdit:
    """What a fork changes at its step; ``settings`` alone re-asks the model there with the branch's settings."""

    kind: EditKind = "settings"
    text: str | None = None
    """The new observation, thought or final answer."""
    tool: str | None = None
    """The new action's tool (``action``)."""
    arguments: dict[str, Any] = field(default_factory=dict)
    """The new action's arguments (``action``): the tool then runs with these."""
    call_id: str | None = None
    """Which call of the step the edit is about (parallel native calls); default its first call."""
    tool_calls: tuple[dict[str, Any], ...] = ()
    """A whole decision's calls (``decision``, e.g. from a re-sample), as ModelFinished stores them."""

    @property
    def label(self) -> str:
        """``edited observation``, ``edited action``... or ``new settings``."""
        return "new settings" if self.kind == "settings" else f"edited {self.kind}"

    def to_dict(self) -> dict[str, Any]:
        """The edit as recorded in ``RunForked.edit`` (only the fields it uses)."""
        return {k: v for k, v in dataclasses.asdict(self).items() if v not in (None, {}, ())}


@dataclass(frozen=True)
class ForkPlan:
    """The fork's events before anything live, and what remains to do at and after the fork point."""

    events: list[Event]
    copied: int
    """How many of ``events`` are unchanged copies."""
    calls: tuple[CallRequest, ...] = ()
    """Calls to run at the fork step (an edited action or thought)."""
    answer: str | None = None
    """The edited decision is a final answer: the fork ends with it."""
    next_step: int = 1
    """The first step the model is asked live (when there is neither an answer nor nothing more to do)."""


def step_of(event: Event) -> int | None:
    """The step an event belongs to, if it has one."""
    return getattr(event, "step", None)


def plan_fork(run_events: list[Event], at_step: int, edit: StepEdit, run_id: str, protocol: str) -> ForkPlan:
    """The events the fork starts from; ValueError (one sentence) when the step or the edit does not fit the run."""
    steps = sorted({s for e in run_events if (s := step_of(e)) is not None and not isinstance(e, ModelSampled)})
    if at_step < 1 or not steps or at_step > steps[-1]:
        raise ValueError(f"the run has steps 1 to {steps[-1] if steps else 0}: there is no step {at_step} to fork at")
    keep = [e for e in run_events if not isinstance(e, _NOT_COPIED)]
    now = time.time()  # a copy is made now and takes no time: the fork's clock starts with its own run
    before: list[Event] = [dataclasses.replace(e, run_id=run_id, ts=now) for e in keep if (step_of(e) or 0) < at_step]
    at: list[Event] = [dataclasses.replace(e, run_id=run_id, ts=now) for e in keep if step_of(e) == at_step]
    if edit.kind == "settings":
        return ForkPlan(before, len(before), next_step=at_step)
    model = next((e for e in reversed(at) if isinstance(e, ModelFinished)), None)
    if model is None or model.error:
        raise ValueError(f"step {at_step} has no model reply to edit: fork there with new settings instead")
    if edit.kind == "observation":
        return _observation(before, at, model, edit, at_step)
    return _decision(before, at, model, edit, protocol, at_step)


def _observation(before: list[Event], at: list[Event], model: ModelFinished, edit: StepEdit, step: int) -> ForkPlan:
    ids = [c["id"] for c in model.tool_calls]
    target = edit.call_id or (ids[0] if ids else None)
    if target is None or target not in ids:
        raise ValueError(f"step {step} called no tool{'' if target is None else f' with call id {target!r}'}")
    out: list[Event] = []
    for event in at:
        if isinstance(event, OutputFlagged) and event.call_id == target:
            continue  # what was masked in the old result is not in the new one
        if isinstance(event, ToolFinished) and event.call_id == target:
            event = dataclasses.replace(
                event, output=edit.text or "", details=None, error=None, truncated=False, duration_ms=0.0
            )
        out.append(event)
    return ForkPlan(before + out, len(before) + len(out) - 1, next_step=step + 1)


def _decision(
    before: list[Event], at: list[Event], model: ModelFinished, edit: StepEdit, protocol: str, step: int
) -> ForkPlan:
    thought, calls, answer = _decided(model, edit, step)
    text = decision_text(protocol, thought, calls, answer)
    edited = dataclasses.replace(
        model, thought=thought, text=text, tool_calls=calls, final_answer=answer, format_error=None, reasoning=""
    )
    head = [e for e in at if e.type == "step_started"]  # the old reply's calls and checks are not copied
    requests = tuple(_request(c) for c in calls)
    return ForkPlan(before + head + [edited], len(before) + len(head), requests, answer, step + 1)


def _decided(model: ModelFinished, edit: StepEdit, step: int) -> tuple[str, tuple[dict[str, Any], ...], str | None]:
    """The edited (thought, tool calls, final answer) of the step."""
    if edit.kind == "answer":
        return model.thought, (), edit.text or ""
    if edit.kind == "decision":
        return edit.text if edit.text is not None else model.thought, edit.tool_calls, None
    if edit.kind == "thought":
        if model.format_error:
            raise ValueError(f"step {step}'s reply was not understood: edit its action or answer instead")
        return edit.text or "", model.tool_calls, model.final_answer
    if not edit.tool:
        raise ValueError("an edited action needs a tool name")
    new = {"name": edit.tool, "arguments": json.dumps(edit.arguments, ensure_ascii=False)}
    ids = [c["id"] for c in model.tool_calls]
    target = edit.call_id or (ids[0] if ids else "call_1")
    if target not in ids:
        return model.thought, ({"id": target, **new},), None
    return model.thought, tuple({"id": c["id"], **new} if c["id"] == target else c for c in model.tool_calls), None


def _request(call: dict[str, Any]) -> CallRequest:
    try:
        arguments = json.loads(call.get("arguments") or "{}")
    except json.JSONDecodeError as exc:
        return CallRequest(call["id"], call["name"], {}, f"the arguments are not valid JSON ({exc.msg})")
    if not isinstance(arguments, dict):
        return CallRequest(call["id"], call["name"], {}, "the arguments must be a JSON object")
    return CallRequest(call["id"], call["name"], arguments)


def decision_text(protocol: str, thought: str, calls: tuple[dict[str, Any], ...], answer: str | None) -> str:
    """The reply a model would have written for this decision in ``protocol`` (what the branch's context holds)."""
    if protocol == "tools":
        return answer if answer is not None else thought
    if protocol == "json":
        if answer is not None:
            return json.dumps({"thought": thought, "final_answer": answer}, ensure_ascii=False)
        first = calls[0] if calls else {"name": "", "arguments": "{}"}
        try:
            arguments: Any = json.loads(first.get("arguments") or "{}")
        except json.JSONDecodeError:
            arguments = first.get("arguments")  # kept as written: the call then fails as it did
        action = {"tool": first["name"], "arguments": arguments}
        return json.dumps({"thought": thought, "action": action}, ensure_ascii=False)
    if answer is not None:
        return f"Thought: {thought}\nFinal Answer: {answer}"
    first = calls[0] if calls else {"name": "", "arguments": "{}"}
    return f"Thought: {thought}\nAction: {first['name']}\nAction Input: {first.get('arguments') or '{}'}"
