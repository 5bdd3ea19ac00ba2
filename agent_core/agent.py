"""Agent: a model, tools, a protocol and guards; ``run(question)`` yields the run's events."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from agent_core.approvals import Approvals
from agent_core.context import ConversationMemory, rebuild_scratchpad
from agent_core.events import Event, RunStarted
from agent_core.limits import CancelToken
from agent_core.models.base import ChatModel
from agent_core.output_check import OutputCheck, default_check
from agent_core.protocols import AgentProtocol, get_protocol
from agent_core.tools import Tool, ToolSet, builtin_tools


@dataclass(frozen=True)
class AgentSettings:
    """Guards and sampling settings; recorded in every RunStarted event (no secrets here)."""

    max_steps: int = 10
    """Model calls allowed per run before it ends with ``max_steps``."""
    time_limit: float | None = 300.0
    """Wall-clock seconds per run before it ends with ``timeout``."""
    tool_timeout: float = 30.0
    """Seconds one tool call may take (a tool's own ``timeout`` wins)."""
    max_observation_chars: int = 2000
    """Tool outputs longer than this are truncated for the model, with a note saying so."""
    temperature: float | None = 0.0
    max_tokens: int | None = 4096
    """Most tokens one model reply may have (sent as ``max_tokens``); None leaves it to the server."""
    max_format_retries: int = 2
    """Corrective retries after replies in the wrong format; one more failure ends the run."""
    keep_steps: int = 6
    """Steps of the current run kept in full in the context (up to twice as many between condensing batches)."""
    memory_budget_tokens: int = 3000
    """Token budget for earlier turns of the conversation (recent in full, older summarised)."""
    delta_interval: float = 0.03
    """Streamed text is batched into at most one ModelDelta per this many seconds (0: one per chunk)."""
    max_tools: int | None = None
    """Offer at most this many tools per step, the most relevant first (BM25); None offers every tool."""
    pinned_tools: tuple[str, ...] = ()
    """Tools always offered, whatever ``max_tools`` says."""
    require_approval: bool = True
    """Pause before tools that ask first (see ``approval_policy``) until a person decides; False approves them all."""
    tool_approval: dict[str, bool] = dataclasses.field(default_factory=dict)
    """Per-tool override of the approval default: ``{"remember": False}`` trusts remember, True makes a tool ask."""

    def __post_init__(self) -> None:
        if self.max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        if self.time_limit is not None and self.time_limit <= 0:
            raise ValueError("time_limit must be positive (or None for no limit)")
        if self.tool_timeout <= 0:
            raise ValueError("tool_timeout must be positive")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError("max_tokens must be at least 1 (or None to leave it to the server)")


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

    def run(self, question: str, *, cancel: CancelToken | None = None, run_id: str | None = None) -> Iterator[Event]:
        """Answer ``question``: yields RunStarted … RunFinished, exactly one RunFinished, always last."""
        from agent_core.loop import RunLoop

        loop = RunLoop(self, question, run_id=run_id or new_run_id(), cancel=cancel or CancelToken())
        return loop.events()

    def resume(self, run_events: Sequence[Event], *, cancel: CancelToken | None = None) -> Iterator[Event]:
        """Continue an interrupted run (its events so far, without a RunFinished) after its last complete step."""
        from agent_core.loop import ResumePoint, RunLoop

        started = next((e for e in run_events if isinstance(e, RunStarted)), None)
        if started is None:
            raise ValueError("cannot resume: the events hold no run_started event")
        pad, last_step = rebuild_scratchpad(run_events, self.protocol, list(self.tools), self.settings.keep_steps)
        point = ResumePoint(pad, last_step + 1, tuple(run_events))
        loop = RunLoop(self, started.question, run_id=started.run_id, cancel=cancel or CancelToken(), resume=point)
        return loop.events()


def new_run_id() -> str:
    """A fresh, sortable-enough unique run id."""
    return f"run_{uuid.uuid4().hex[:16]}"
