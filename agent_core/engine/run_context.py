"""What one run works with: the agent's settings and the parts an Agent hands to its loop."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.dataclasses import dataclass as pydantic_dataclass

from agent_core.engine.approvals import Approvals
from agent_core.engine.attachments import Attachment
from agent_core.engine.context_window import ConversationMemory
from agent_core.engine.protocols import AgentProtocol
from agent_core.guards.masking import OutputCheck
from agent_core.models.chat import ChatModel
from agent_core.runtime.reuse import RecordedResults
from agent_core.tools import ToolSet

log = logging.getLogger(__name__)
_MAX_TOKENS = "max_tokens must be at least 1 (or None to leave it to the server)"
_REPEATS = ("redirect", "allow", "stop")


def _check(test: Callable[[Any], bool], message: str) -> AfterValidator:
    """A field check that fails with ``message`` (``{value}`` in it: the value), one sentence; None always passes."""

    def check(value: Any) -> Any:
        if value is not None and not test(value):
            raise ValueError(message.format(value=value))
        return value

    return AfterValidator(check)


@pydantic_dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class AgentSettings:
    """Limits and sampling settings: what the sidebar edits, the settings file keeps, RunStarted and the session's
    config record (``to_record``, the one encoding). No secrets here; None is the one "no limit"."""

    max_steps: Annotated[int, _check(lambda v: v >= 1, "max_steps must be at least 1")] = 10
    """Model calls allowed per run before it ends with ``max_steps``."""
    time_limit: Annotated[
        float | None, _check(lambda v: v > 0, "time_limit must be positive (or None for no limit)")
    ] = 300.0
    """Wall-clock seconds per run before it ends with ``timeout`` (None: no limit)."""
    tool_timeout: Annotated[float, _check(lambda v: v > 0, "tool_timeout must be positive")] = 30.0
    """Seconds one tool call may take (a tool's own ``timeout`` wins)."""
    max_observation_chars: int = 2000
    """Tool outputs longer than this are truncated for the model, with a note saying so."""
    temperature: float | None = 0.0
    """Sampling temperature sent to the model (None: the provider's default)."""
    max_tokens: Annotated[int | None, _check(lambda v: v >= 1, _MAX_TOKENS)] = 4096
    """Most tokens one model reply may have (sent as ``max_tokens``); None leaves it to the server."""
    max_format_retries: int = 2
    """Corrective retries after replies in the wrong format; one more failure ends the run."""
    keep_steps: int = 6
    """Steps of the current run kept in full in the context (up to twice as many between condensing batches)."""
    memory_budget_tokens: int = 3000
    """Token budget for earlier turns of the conversation (recent in full, older summarised)."""
    delta_interval: float = 0.03
    """Streamed text is batched into at most one ModelDelta per this many seconds (0: one per chunk)."""
    max_tools: Annotated[
        int | None, _check(lambda v: v >= 1, "max_tools must be at least 1 (or None for every tool)")
    ] = None
    """Offer at most this many tools per step, the most relevant first (BM25); None offers every tool."""
    pinned_tools: tuple[str, ...] = ()
    """Tools always offered, whatever ``max_tools`` says."""
    require_approval: bool = True
    """Pause before tools that ask first (see ``approval_policy``) until a person decides; False approves them all."""
    tool_approval: dict[str, bool] = Field(default_factory=dict)
    """Per-tool override of the approval default: ``{"remember": False}`` trusts remember, True makes a tool ask."""
    repeat_policy: Annotated[
        str, _check(lambda v: v in _REPEATS, "repeat_policy must be redirect, allow or stop, not {value!r}")
    ] = "redirect"
    """A call the run already made: ``redirect`` (not run again; its result restated, then the answer asked for),
    ``allow`` (run again) or ``stop`` (the run ends). Tools marked ``repeatable`` are always run again."""

    def to_record(self) -> dict[str, Any]:
        """The settings as RunStarted, the session's config and the settings file hold them (JSON-ready)."""
        return _RECORD.dump_python(self, mode="json")

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> AgentSettings:
        """A new run's settings from a record of any version: unknown keys are ignored, an invalid value keeps its
        default, and the consent a run was given (``--yes``, ``--trust``) stays with that run: it asks again.

        Records written before "no limit" had one meaning held ``max_tools: 0`` for it.
        """
        values = {k: v for k, v in record.items() if k in _FIELDS}
        if values.get("max_tools") == 0:
            values["max_tools"] = None
        try:
            return _RECORD.validate_python(values)
        except ValidationError as exc:
            bad = {str(e["loc"][0]) for e in exc.errors() if e.get("loc")}
            log.warning("ignoring invalid recorded settings: %s", ", ".join(sorted(bad)) or "all")
        try:
            return _RECORD.validate_python({k: v for k, v in values.items() if k not in bad})
        except ValidationError:
            return cls()


def settings_problem(exc: ValueError) -> str:
    """What is wrong with the settings ``exc`` refused: one sentence per setting (not pydantic's several lines)."""
    if isinstance(exc, ValidationError):
        return "; ".join(str(error["msg"]).removeprefix("Value error, ") for error in exc.errors())
    return str(exc)


_RECORD: TypeAdapter[AgentSettings] = TypeAdapter(AgentSettings)
_FIELDS = frozenset(f.name for f in dataclasses.fields(AgentSettings)) - {"require_approval", "tool_approval"}


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
