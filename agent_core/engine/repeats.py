"""Repeated calls: a call the run already made (same tool, same canonical arguments) is not run again.

Small models loop: they ask for ``calculator("17 * 23")`` again and again though 391 is in their context.
The guard answers a repeat with the earlier result and a request to move on (``repeat_policy`` ``redirect``);
after ``NARROW_AFTER`` repeats the next request is narrowed by the protocol (a final answer only, or, after a
failed call, an answer or another tool: see ``Narrowing``), and a model that repeats once more ends the run
with status ``repeated``. ``allow`` runs every call (the repeat is still reported), ``stop`` ends the run at
the first repeat. A tool marked ``repeatable`` (the clock, a web search) is always run again: its answer may
change. The guard decides; what the run has done (its calls, its repeats, the narrowing) is read off the run's
state, which folds the events the guard's decisions become.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from agent_core.engine.protocols.protocol import Narrowing
from agent_core.engine.state import CallState, RunState, StepState, canonical_arguments
from agent_core.events import AnswerRequested, CallRepeated, ToolFinished
from agent_core.formatting import clip, plural
from agent_core.guards.limits import RunStopped
from agent_core.tools.runner import CallRequest
from agent_core.tools.tool import ToolSet

RepeatPolicy = Literal["redirect", "allow", "stop"]
REPEAT_POLICIES: tuple[str, ...] = ("redirect", "allow", "stop")
NARROW_AFTER = 2
"""Repeats after which the next request is narrowed (to a final answer, or away from the repeated tools)."""
STOP_AFTER = 3
"""Repeats at which the run ends (the model repeated even after the narrowed request)."""


@dataclass(frozen=True)
class Repeat:
    """A call of this step that the run made before."""

    call: CallRequest
    earlier: CallState
    number: int
    """Repeats in the run so far, this one included."""


class RepeatGuard:
    """Decides what one run's repeated calls get; the loop asks it at every step, it reads the run's state."""

    def __init__(self, tools: ToolSet, policy: str, run_id: str, state: RunState) -> None:
        self.tools, self.policy, self.run_id, self.state = tools, policy, run_id, state

    def split(self, calls: Sequence[CallRequest]) -> tuple[list[CallRequest], list[Repeat]]:
        """The calls to run and the repeats to answer from the record (all run under ``allow``)."""
        run: list[CallRequest] = []
        repeats: list[Repeat] = []
        for call in calls:
            earlier = self._earlier(call)
            if earlier is None:
                run.append(call)
                continue
            repeats.append(Repeat(call, earlier, self.state.repeats.count + len(repeats) + 1))
            if self.policy == "allow":
                run.append(call)
        return run, repeats

    def recorded(self, step: StepState) -> list[Repeat]:
        """The repeats ``step`` made, as ``split`` found them (for a run resumed right after that step)."""
        found = []
        for action in step.actions:
            earlier = self.state.find(action.tool, action.arguments) if action.repeated is not None else None
            if action.repeated is not None and earlier is not None:
                call = CallRequest(action.call_id, action.tool, action.arguments)
                found.append(Repeat(call, earlier, action.repeated.repeats))
        return found

    def _earlier(self, call: CallRequest) -> CallState | None:
        tool = self.tools.get(call.name)
        if call.problem or tool is None or tool.repeatable:
            return None
        return self.state.find(call.name, call.arguments)

    def answer(self, step: int, repeats: Sequence[Repeat]) -> list[CallRepeated | ToolFinished]:
        """The events that report each repeat and, under ``redirect``, restate its earlier result (a ToolFinished).

        Under ``stop`` only the first repeat is reported: ``stop_if_asked`` then ends the run.
        """
        made: list[CallRepeated | ToolFinished] = []
        for repeat in repeats:
            call, ran = repeat.call, self.policy == "allow"
            made.append(
                CallRepeated(
                    run_id=self.run_id,
                    step=step,
                    call_id=call.call_id,
                    tool=call.name,
                    arguments=dict(call.arguments),
                    first_step=repeat.earlier.step,
                    repeats=repeat.number,
                    ran=ran,
                )
            )
            if self.policy == "stop":
                break
            if not ran:
                made.append(
                    ToolFinished(
                        run_id=self.run_id, step=step, call_id=call.call_id, tool=call.name, output=note(repeat)
                    )
                )
        return made

    def stop_if_asked(self, repeats: Sequence[Repeat]) -> None:
        """Under ``stop``, end the run at its first repeat (RunStopped), once the repeat was reported."""
        if repeats and self.policy == "stop":
            raise RunStopped("repeated", f"the model repeated a call it made at step {repeats[0].earlier.step}")

    def after_step(
        self, step: int, repeats: Sequence[Repeat], describe: Callable[[Narrowing], str]
    ) -> AnswerRequested | None:
        """End the run after too many repeats (RunStopped), or the event that narrows the next request (None when
        it is not narrowed); the run's state reads the narrowing off that event."""
        if not repeats or self.policy != "redirect":
            return None
        count = self.state.repeats.count
        if count >= STOP_AFTER:
            raise RunStopped("repeated", self.stop_sentence(repeats[-1]))
        narrowing = self.state.narrowing_after(self.state.step(step)) if count >= NARROW_AFTER else None
        if narrowing is None:
            return None
        return AnswerRequested(run_id=self.run_id, step=step, repeats=count, narrowing=describe(narrowing))

    def stop_sentence(self, last: Repeat) -> str:
        """Why the run ended: the repeated call, how often, and where it was first made."""
        call = f"{last.call.name} {clip(canonical_arguments(last.call.arguments), 80, one_line=True)}"
        what = "the same call" if len(self.state.repeats.keys) == 1 else "earlier calls"
        times = plural(self.state.repeats.count, "time")
        return f"the model repeated {what} {times} ({call}, first made at step {last.earlier.step})"


def note(repeat: Repeat) -> str:
    """The observation of a repeat that was not run: where the call was made, its result, and what to do."""
    earlier = repeat.earlier
    call = f"{repeat.call.name} {canonical_arguments(repeat.call.arguments)}"
    return (
        f"This exact call ({call}) was already made at step {earlier.step}, so it was not run again. "
        f"Its result was: {earlier.output or ''}\n"
        "Use that result: give the final answer now, or take a different step."
    )
