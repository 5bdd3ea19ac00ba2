"""What one run works with: the agent's settings and the parts an Agent hands to its loop."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_core.engine.approvals import Approvals
from agent_core.engine.attachments import Attachment
from agent_core.engine.context_window import ConversationMemory
from agent_core.engine.protocols import AgentProtocol
from agent_core.guards.output_check import OutputCheck
from agent_core.models.chat_model import ChatModel
from agent_core.runtime.reuse import RecordedResults
from agent_core.tools import ToolSet


@dataclass(frozen=True)
class AgentSettings:
    """Limits and sampling settings; recorded in every RunStarted event (no secrets here)."""

    max_steps: int = 10
    """Model calls allowed per run before it ends with ``max_steps``."""
    time_limit: float | None = 300.0
    """Wall-clock seconds per run before it ends with ``timeout``."""
    tool_timeout: float = 30.0
    """Seconds one tool call may take (a tool's own ``timeout`` wins)."""
    max_observation_chars: int = 2000
    """Tool outputs longer than this are truncated for the model, with a note saying so."""
    temperature: float | None = 0.0
    """Sampling temperature sent to the model (None: the provider's default)."""
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
    tool_approval: dict[str, bool] = field(default_factory=dict)
    """Per-tool override of the approval default: ``{"remember": False}`` trusts remember, True makes a tool ask."""
    repeat_policy: str = "redirect"
    """A call the run already made: ``redirect`` (not run again; its result restated, then the answer asked for),
    ``allow`` (run again) or ``stop`` (the run ends). Tools marked ``repeatable`` are always run again."""

    def __post_init__(self) -> None:
        if self.max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        if self.time_limit is not None and self.time_limit <= 0:
            raise ValueError("time_limit must be positive (or None for no limit)")
        if self.tool_timeout <= 0:
            raise ValueError("tool_timeout must be positive")
        if self.repeat_policy not in ("redirect", "allow", "stop"):
            raise ValueError(f"repeat_policy must be redirect, allow or stop, not {self.repeat_policy!r}")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError("max_tokens must be at least 1 (or None to leave it to the server)")


@dataclass(frozen=True)
class RunContext:
    """The parts of an Agent a run uses, taken when the run starts (the loop never sees the Agent itself)."""

    model: ChatModel
    """The chat model asked at every step."""
    tools: ToolSet
    """Every tool the run may call (a step may offer fewer, see ``AgentSettings.max_tools``)."""
    protocol: AgentProtocol
    """How requests are built and replies understood (ReAct text or native tool calls)."""
    settings: AgentSettings
    """Limits and sampling settings of the run."""
    memory: ConversationMemory
    """Earlier turns of the conversation; the run adds its own turn when it ends."""
    instructions: str | None
    """Extra instructions for the system prompt."""
    approvals: Approvals
    """Where decisions on calls that need approval are posted."""
    output_check: OutputCheck | None
    """Checks tool outputs and replies before they are shown or stored; None turns it off."""
    recorded: RecordedResults | None = None
    """A fork's original run: its recorded tool results are reused for the same calls (see ``reuse``)."""
    attachments: tuple[Attachment, ...] = ()
    """Files attached to the run's question (sent with it, see ``attachments``)."""
