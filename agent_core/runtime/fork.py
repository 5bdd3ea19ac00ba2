"""What if: fork a run at a step with an edit, and continue it live in a new session.

The fork is an ordinary run in a session of its own (``parent_id`` = the original's session, its
``RunForked`` event names the original run and the step). Its first events are copies of the original's
up to the fork point, then the edit, then live steps; no model call before the fork point is sent again
and the original is never written to. The branch is the agent's own loop over those first events, folded
(``Agent.branch``); while it runs, a call with the same tool and canonical arguments as one the original made
is answered with the recorded result (see ``RecordedResults``).

``plan_fork`` reads the original run's events and returns what the fork records before anything live
happens: every event of the steps before the fork point (its run id changed to the fork's, stamped with the time
of the copy: the figures it records, such as a model call's latency, are the original's), then the
edited step — a tool result replaced, or the model's decision rewritten (thought, action and arguments,
or a final answer) — and what is left to do: calls to run at that step, an answer to finish with, or the
step to continue from. Planning calls no model and no tool.

    fork, events = fork_run(store, session_id, run_id, 2, agent, edit=StepEdit("observation", text="42"))
    for event in events: ...          # recorded in the fork as they come
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_core.engine.agent import Agent, new_run_id
from agent_core.engine.state import RecordedResults, RunState
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
from agent_core.guards.limits import CancelToken
from agent_core.models.endpoints import recorded_endpoint
from agent_core.runtime.sessions import fork_before_run, load_memory, recorded_run
from agent_core.store import SessionInfo, SessionStore
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


def run_events_of(store: SessionStore, session_id: str, run_id: str) -> list[Event]:
    """The events of one run of a session; KeyError if the session has no such run."""
    events = [e for e in store.log.events(session_id) if e.run_id == run_id]
    if not any(isinstance(e, RunStarted) for e in events):
        raise KeyError(f"session {session_id!r} has no run {run_id!r}")
    return events


@dataclass(frozen=True)
class PreparedFork:
    """A fork's new session and the branch's first events, before anything runs (see ``start_fork``)."""

    session: SessionInfo
    run_id: str
    """The branch's run id."""
    head: tuple[RunStarted, RunForked]
    plan: ForkPlan


def prepare_fork(
    store: SessionStore,
    session_id: str,
    run_id: str,
    at_step: int,
    agent: Agent,
    *,
    edit: StepEdit | None = None,
    reuse: bool = True,
    no_reuse_tools: Iterable[str] = (),
) -> PreparedFork:
    """Make the fork's session (the turns before the run, ``parent_id`` = the original) and set ``agent`` up for it.

    ``agent`` holds the branch's model, tools, protocol and settings (they apply from the fork point on).
    Raises KeyError for an unknown run, ValueError when the step or the edit does not fit it.
    """
    edit = edit or StepEdit()
    original = run_events_of(store, session_id, run_id)
    started = next(e for e in original if isinstance(e, RunStarted))
    branch_id = new_run_id()
    plan = plan_fork(original, at_step, edit, branch_id, agent.protocol.name)
    source = store.sessions.get(session_id)
    title = f"forked from {source.title} at step {at_step} ({edit.label})"[:200]
    fork = fork_before_run(store, session_id, run_id, title=title)
    load_memory(agent, store.log.events(fork.id))
    skip = set(no_reuse_tools)
    agent.recorded = RecordedResults(RunState.fold(original), session_id=session_id, skip=skip) if reuse else None
    marker = RunForked(
        run_id=branch_id,
        from_session=session_id,
        from_run=run_id,
        at_step=at_step,
        edit={**edit.to_dict(), "settings": settings_changed(started, agent)},
        copied_events=plan.copied,
    )
    return PreparedFork(fork, branch_id, (_started(agent, started.question, branch_id), marker), plan)


def start_fork(
    store: SessionStore, prepared: PreparedFork, agent: Agent, *, cancel: CancelToken | None = None
) -> Iterator[Event]:
    """The branch's events, recorded in its session as they come (the run is claimed for this process now)."""
    cancel = cancel or CancelToken()
    events = _branch(agent, *prepared.head, prepared.plan, cancel)
    return _recorded(store, prepared.session.id, agent, prepared.run_id, events, cancel)


def fork_run(
    store: SessionStore,
    session_id: str,
    run_id: str,
    at_step: int,
    agent: Agent,
    *,
    edit: StepEdit | None = None,
    reuse: bool = True,
    no_reuse_tools: Iterable[str] = (),
    cancel: CancelToken | None = None,
) -> tuple[SessionInfo, Iterator[Event]]:
    """A new session forked from run ``run_id`` at ``at_step``, and the branch's events (recorded as they come).

    ``prepare_fork`` then ``start_fork``; raises KeyError for an unknown run, ValueError for a step or an edit
    that does not fit it.
    """
    prepared = prepare_fork(
        store, session_id, run_id, at_step, agent, edit=edit, reuse=reuse, no_reuse_tools=no_reuse_tools
    )
    return prepared.session, start_fork(store, prepared, agent, cancel=cancel)


def settings_changed(started: RunStarted, agent: Agent) -> dict[str, Any]:
    """What the branch runs with that the original did not: model, protocol and settings, new values."""
    changed: dict[str, Any] = {}
    if agent.model.name != started.model:
        changed["model"] = agent.model.name
    if agent.protocol.name != started.protocol:
        changed["protocol"] = agent.protocol.name
    now = agent.settings.to_record()
    changed |= {k: v for k, v in now.items() if k in started.settings and started.settings[k] != v}
    if agent.instructions:
        changed["instructions"] = agent.instructions
    return changed


def _started(agent: Agent, question: str, run_id: str) -> RunStarted:
    return RunStarted(
        run_id=run_id,
        question=question,
        model=agent.model.name,
        protocol=agent.protocol.name,
        tools=tuple(t.schema for t in agent.tools),
        settings=agent.settings.to_record(),
        endpoint=recorded_endpoint(agent.model),
    )


def _branch(
    agent: Agent, started: RunStarted, marker: RunForked, plan: ForkPlan, cancel: CancelToken
) -> Iterator[Event]:
    """RunStarted, RunForked, the copies and the edit, then the same loop over their fold: the edited step's calls,
    then its answer or the live steps."""
    head: list[Event] = [started, marker, *plan.events]
    yield from head
    yield from agent.branch(head, plan.next_step - 1, calls=plan.calls, answer=plan.answer, cancel=cancel)


def _recorded(
    store: SessionStore,
    session_id: str,
    agent: Agent,
    run_id: str,
    events: Iterator[Event],
    cancel: CancelToken,
) -> Iterator[Event]:
    """The branch's events, recorded in its session while this process owns the run (as ``run_in_session``)."""
    return recorded_run(store, session_id, agent, run_id, lambda _claimed: events, cancel)


__all__ = ["PreparedFork", "StepEdit", "fork_run", "prepare_fork", "run_events_of", "start_fork"]
