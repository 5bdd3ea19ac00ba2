"""Agent: a model, tools, a protocol and limits; ``run(question)`` yields the run's events."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from agent_core.engine.approvals import Approvals
from agent_core.engine.attachments import Attachment, check_attachments
from agent_core.engine.context_window import ConversationMemory, rebuild_scratchpad
from agent_core.engine.loop import ResumePoint, RunLoop
from agent_core.engine.protocols import AgentProtocol, get_protocol
from agent_core.engine.repeats import rebuilt_requests
from agent_core.engine.run_context import AgentSettings, RunContext
from agent_core.events import Event, RunStarted
from agent_core.guards.limits import CancelToken
from agent_core.guards.masking import OutputCheck, default_check
from agent_core.models.chat import ChatModel
from agent_core.runtime.reuse import RecordedResults
from agent_core.tools import Tool, ToolSet, builtin_tools

__all__ = ["Agent", "AgentSettings", "new_run_id"]


class Agent:
    """A ReAct agent. ``run()`` is a generator of events; the agent remembers finished turns."""

    def __init__(
        self,
        model: ChatModel,
        tools: Iterable[Tool] | None = None,
        *,
        protocol: str | AgentProtocol = "react",
        memory: ConversationMemory | None = None,
        instructions: str | None = None,
        settings: AgentSettings | None = None,
        approvals: Approvals | None = None,
        output_check: OutputCheck | None = default_check,
        **overrides: Any,
    ) -> None:
        self.model = model
        self.tools = ToolSet(builtin_tools() if tools is None else tools)
        self.protocol = get_protocol(protocol)
        self.settings = dataclasses.replace(settings or AgentSettings(), **overrides)
        self.memory = memory or ConversationMemory(budget_tokens=self.settings.memory_budget_tokens)
        self.instructions = instructions
        self.approvals = approvals or Approvals()
        """Where decisions on calls that need approval are posted (see ``ApprovalRequested``)."""
        self.output_check = output_check
        """Checks tool outputs and answers before they are shown or stored; None turns it off."""
        self.recorded: RecordedResults | None = None
        """Set for a fork: the original run whose tool results are reused (see ``agent_core.runtime.fork``)."""

    def run(
        self,
        question: str,
        *,
        cancel: CancelToken | None = None,
        run_id: str | None = None,
        attachments: Sequence[Attachment] = (),
    ) -> Iterator[Event]:
        """Answer ``question``: yields RunStarted … RunFinished, exactly one RunFinished, always last.

        ``attachments`` go with the question (AttachmentError at once when the model is known to take no images).
        """
        check_attachments(attachments, self.model.name)
        parts = dataclasses.replace(self.context(), attachments=tuple(attachments))
        loop = RunLoop(parts, question, run_id=run_id or new_run_id(), cancel=cancel or CancelToken())
        return loop.events()

    def resume(self, run_events: Sequence[Event], *, cancel: CancelToken | None = None) -> Iterator[Event]:
        """Continue an interrupted run (its events so far, without a RunFinished) after its last complete step."""
        started = next((e for e in run_events if isinstance(e, RunStarted)), None)
        if started is None:
            raise ValueError("cannot resume: the events hold no run_started event")
        asked = rebuilt_requests(run_events, self.protocol)
        messages = {step: message for step, (message, _) in asked.items()}
        tools, keep = list(self.tools), self.settings.keep_steps
        pad, last_step = rebuild_scratchpad(run_events, self.protocol, tools, keep, messages)
        narrowed = asked[last_step][1] if last_step in asked else None  # the narrowed request was not answered yet
        point = ResumePoint(pad, last_step + 1, tuple(run_events), narrowed)
        parts = dataclasses.replace(self.context(), attachments=tuple(map(Attachment.from_dict, started.attachments)))
        loop = RunLoop(parts, started.question, run_id=started.run_id, cancel=cancel or CancelToken(), resume=point)
        return loop.events()

    def context(self) -> RunContext:
        """The parts a run works with, as they are now (attributes may be swapped between runs)."""
        return RunContext(
            model=self.model,
            tools=self.tools,
            protocol=self.protocol,
            settings=self.settings,
            memory=self.memory,
            instructions=self.instructions,
            approvals=self.approvals,
            output_check=self.output_check,
            recorded=self.recorded,
        )


def new_run_id() -> str:
    """A fresh, sortable-enough unique run id."""
    return f"run_{uuid.uuid4().hex[:16]}"
