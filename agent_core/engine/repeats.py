"""Repeated calls: a call the run already made (same tool, same canonical arguments) is not run again.

Small models loop: they ask for ``calculator("17 * 23")`` again and again though 391 is in their context.
The guard answers a repeat with the earlier result and a request to move on (``repeat_policy`` ``redirect``);
after ``NARROW_AFTER`` repeats the next request is narrowed by the protocol (a final answer only, or, after a
failed call, an answer or another tool: see ``Narrowing``), and a model that repeats once more ends the run
with status ``repeated``. ``allow`` runs every call (the repeat is still reported), ``stop`` ends the run at
the first repeat. A tool marked ``repeatable`` (the clock, a web search) is always run again: its answer may
change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from agent_core.engine.call_index import CallIndex, RecordedCall, canonical_arguments
from agent_core.engine.protocols.protocol import AgentProtocol, Narrowing
from agent_core.events import AnswerRequested, CallRepeated, Event, StepStarted, ToolFinished
from agent_core.formatting import clip, plural
from agent_core.guards.limits import RunStopped
from agent_core.models.chat import Message
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
    earlier: RecordedCall
    number: int
    """Repeats in the run so far, this one included."""


class RepeatGuard:
    """Watches one run's calls and decides what a repeat gets; the loop asks it at every step."""

    def __init__(self, tools: ToolSet, policy: str, run_id: str, earlier: Sequence[Event] = ()) -> None:
        self.tools, self.policy, self.run_id = tools, policy, run_id
        self.index = CallIndex(earlier)
        self.repeats = sum(1 for e in earlier if isinstance(e, CallRepeated))
        self.keys: set[str] = set()
        """The repeated calls, as ``tool(canonical arguments)``."""
        self.repeated_tools = tuple(dict.fromkeys(e.tool for e in earlier if isinstance(e, CallRepeated)))

    def learn(self, event: Event) -> None:
        """Take in an event of the run (the calls it makes and what they return)."""
        self.index.add(event)

    def split(self, calls: Sequence[CallRequest]) -> tuple[list[CallRequest], list[Repeat]]:
        """The calls to run and the repeats to answer from the record (all run under ``allow``)."""
        run: list[CallRequest] = []
        repeats: list[Repeat] = []
        for call in calls:
            earlier = self._earlier(call)
            if earlier is None:
                run.append(call)
                continue
            self.repeats += 1
            self.keys.add(f"{call.name}({canonical_arguments(call.arguments)})")
            self.repeated_tools = tuple(dict.fromkeys((*self.repeated_tools, call.name)))
            repeats.append(Repeat(call, earlier, self.repeats))
            if self.policy == "allow":
                run.append(call)
        return run, repeats

    def _earlier(self, call: CallRequest) -> RecordedCall | None:
        tool = self.tools.get(call.name)
        if call.problem or tool is None or tool.repeatable:
            return None
        return self.index.find(call.name, call.arguments)

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
        self, step: int, repeats: Sequence[Repeat], offered: Sequence[str], describe: Callable[[Narrowing], str]
    ) -> tuple[Narrowing, AnswerRequested] | None:
        """End the run after too many repeats (RunStopped), or the narrowing of the next request and the event
        that reports it (None when the next request is not narrowed)."""
        if not repeats or self.policy != "redirect":
            return None
        if self.repeats >= STOP_AFTER:
            raise RunStopped("repeated", self.stop_sentence(repeats[-1]))
        if self.repeats < NARROW_AFTER:
            return None
        narrowing = self.narrowing(repeats[-1], offered)
        return narrowing, AnswerRequested(
            run_id=self.run_id, step=step, repeats=self.repeats, narrowing=describe(narrowing)
        )

    def narrowing(self, last: Repeat, offered: Sequence[str]) -> Narrowing:
        """The narrowing after ``last``: around every tool repeated so far, failed when its earlier call failed."""
        finished = last.earlier.finished
        failed = finished is not None and finished.error is not None
        others = tuple(name for name in offered if name not in self.repeated_tools)
        return Narrowing(self.repeated_tools, failed=failed, other_tools=others)

    def stop_sentence(self, last: Repeat) -> str:
        """Why the run ended: the repeated call, how often, and where it was first made."""
        call = f"{last.call.name} {clip(canonical_arguments(last.call.arguments), 80, one_line=True)}"
        what = "the same call" if len(self.keys) == 1 else "earlier calls"
        times = plural(self.repeats, "time")
        return f"the model repeated {what} {times} ({call}, first made at step {last.earlier.step})"


def note(repeat: Repeat) -> str:
    """The observation of a repeat that was not run: where the call was made, its result, and what to do."""
    earlier = repeat.earlier
    result = earlier.finished.output if earlier.finished is not None else ""
    call = f"{repeat.call.name} {canonical_arguments(repeat.call.arguments)}"
    return (
        f"This exact call ({call}) was already made at step {earlier.step}, so it was not run again. "
        f"Its result was: {result}\n"
        "Use that result: give the final answer now, or take a different step."
    )


def answer_request(repeats: Sequence[Repeat], count: int) -> str:
    """The first half of the message after the narrowing repeat: the repeat named and its earlier result."""
    last = repeats[-1]
    result = last.earlier.finished.output if last.earlier.finished is not None else ""
    return (
        f"You have asked for {last.call.name} {canonical_arguments(last.call.arguments)} again "
        f"({plural(count, 'repeated call')} so far); it was made at step {last.earlier.step} and returned: "
        f"{clip(result, 500)}\nDo not call it again."
    )


def rebuilt_requests(events: Sequence[Event], protocol: AgentProtocol) -> dict[int, tuple[Message, Narrowing]]:
    """The answer requests of a recorded run, by the step they followed: the message and the narrowing, rebuilt.

    A resumed run gets them back in its scratchpad (and, after its last complete step, the narrowed request).
    """
    index = CallIndex(events)
    offered: dict[int, tuple[str, ...]] = {}
    repeated: list[CallRepeated] = []
    out: dict[int, tuple[Message, Narrowing]] = {}
    for event in events:
        if isinstance(event, StepStarted):
            offered[event.step] = event.offered_tools
        elif isinstance(event, CallRepeated):
            repeated.append(event)
        elif isinstance(event, AnswerRequested) and repeated:
            last = repeated[-1]
            earlier = index.find(last.tool, last.arguments)
            if earlier is None:
                continue
            repeat = Repeat(CallRequest(last.call_id, last.tool, dict(last.arguments)), earlier, last.repeats)
            tools = tuple(dict.fromkeys(r.tool for r in repeated))
            failed = earlier.finished is not None and earlier.finished.error is not None
            others = tuple(name for name in offered.get(event.step, ()) if name not in tools)
            narrowing = Narrowing(tools, failed=failed, other_tools=others)
            message = protocol.answer_request(answer_request([repeat], event.repeats), narrowing)
            out[event.step] = (message, narrowing)
    return out
