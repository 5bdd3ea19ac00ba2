"""Typed, immutable events: the only thing the agent emits and the only thing its consumers read.

The UI, the store, the metrics and the session file all speak these shapes. ``Event`` is one closed union of the
event classes, told apart by their ``type`` tag: decode with ``event_from_dict()`` and handle them with a ``match``
ending in ``assert_never(event)``, so a view that forgets a new event type fails instead of ignoring it. Every event
serialises to a plain JSON-ready dict with ``to_dict()``, every field always written (one rule, none left out for
holding its default), and comes back equal with ``event_from_dict()``. The base every event shares (its type tag,
run id and time) and token usage come first; the branch events (a fork, a re-sample) are members like the rest.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Annotated, Any, Literal, TypeAlias, get_args

from pydantic import Field, TypeAdapter


@dataclass(frozen=True)
class Usage:
    """Token usage of one model call (or a sum of several)."""

    prompt_tokens: int = 0
    """Tokens sent to the model."""
    completion_tokens: int = 0
    """Tokens the model wrote."""
    estimated: bool = False
    """True when the provider sent no usage and the numbers are Sparrow's estimate."""
    cached_tokens: int = 0
    """Of ``prompt_tokens``, those the provider read from its prompt cache (billed at the cached-input rate)."""
    reasoning_tokens: int = 0
    """Of ``completion_tokens``, those the model spent reasoning (billed as output, often not shown)."""

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.estimated or other.estimated,
            self.cached_tokens + other.cached_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
        )


@dataclass(frozen=True, kw_only=True)
class EventBase:
    """Base of every event: its type tag, which run it belongs to and when it happened."""

    type: str = field(default="event", init=False)
    """The tag that tells the events apart (``run_started``, ``tool_finished``...); set by each class."""
    run_id: str
    """The run (one question and its answer) this event belongs to."""
    ts: float = field(default_factory=time.time)
    """Unix time at which the event was emitted."""

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-ready dict of every field, the ``type`` discriminator first."""
        return {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


def plain(value: Any) -> Any:
    """A JSON-ready copy: dataclasses become dicts, tuples become lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return value


@dataclass(frozen=True, kw_only=True)
class RunForked(EventBase):
    """This run is a fork of another run at a step: it follows the run's RunStarted, before the copied events."""

    type: Literal["run_forked"] = field(default="run_forked", init=False)
    """Always ``run_forked``."""
    from_session: str
    """The session of the original run (never written to by the fork)."""
    from_run: str
    """The original run."""
    at_step: int
    """The step the fork changes: steps before it are copies of the original's."""
    edit: dict[str, Any] = field(default_factory=dict)
    """What changed at ``at_step``: ``{"kind": "observation" | "action" | "thought" | "answer" | "settings", ...}``."""
    copied_events: int = 0
    """How many of this run's events are copies of the original's (their run id changed to this run's)."""


@dataclass(frozen=True, kw_only=True)
class ModelSampled(EventBase):
    """One re-sample of a finished step: the model asked again with exactly that step's messages."""

    type: Literal["model_sampled"] = field(default="model_sampled", init=False)
    """Always ``model_sampled``."""
    step: int
    """The step re-asked (its ModelFinished holds the messages that were sent again)."""
    batch: str
    """Samples asked together share this id."""
    index: int
    """0-based position of this sample in its batch."""
    model: str = ""
    """Model name as the client reports it."""
    temperature: float | None = None
    """The sampling temperature sent."""
    text: str = ""
    """Raw reply text."""
    thought: str = ""
    """The reply's Thought as parsed."""
    tool_calls: tuple[dict[str, Any], ...] = ()
    """Requested actions, as in ModelFinished."""
    final_answer: str | None = None
    """The answer, when the reply is one."""
    format_error: str | None = None
    """Why the reply could not be understood."""
    error: str | None = None
    """Why the call failed."""
    usage: Usage = field(default_factory=Usage)
    """Tokens of this call."""
    latency_ms: float = 0.0
    """Wall-clock time of the call."""
    endpoint: str | None = None
    """The base URL the sample was asked at, without credentials (its price's provider); None: not recorded."""


RunStatus = Literal["completed", "max_steps", "timeout", "cancelled", "format_error", "error", "repeated"]
RUN_STATUSES: tuple[str, ...] = ("completed", "max_steps", "timeout", "cancelled", "format_error", "error", "repeated")


@dataclass(frozen=True, kw_only=True)
class RunStarted(EventBase):
    """A run began: the question and the configuration it runs with."""

    type: Literal["run_started"] = field(default="run_started", init=False)
    """Always ``run_started``."""
    question: str
    """The user's question for this run."""
    model: str
    """Model name as configured."""
    protocol: str
    """``react`` (text protocol), ``tools`` (native tool calling) or ``json`` (schema-constrained replies)."""
    tools: tuple[dict[str, Any], ...] = ()
    """JSON schemas of the tools available to this run (OpenAI function format)."""
    settings: dict[str, Any] = field(default_factory=dict)
    """Limits and sampling settings as ``AgentSettings.to_record`` writes them (``from_record`` reads any version).
    Never secrets."""
    attachments: tuple[dict[str, str], ...] = ()
    """Files attached to the question: ``{"name", "mime", "data" (image, base64) | "text"}``."""
    endpoint: str | None = None
    """The base URL the model was called at, without credentials (it names the provider whose prices apply);
    None for a model without one (scripted)."""


@dataclass(frozen=True, kw_only=True)
class RunResumed(EventBase):
    """An interrupted run continues after its last completed step."""

    type: Literal["run_resumed"] = field(default="run_resumed", init=False)
    """Always ``run_resumed``."""
    from_step: int
    """The first step executed after resuming."""


@dataclass(frozen=True, kw_only=True)
class StepStarted(EventBase):
    """One think → act → observe step began."""

    type: Literal["step_started"] = field(default="step_started", init=False)
    """Always ``step_started``."""
    step: int
    """1-based step number within the run."""
    offered_tools: tuple[str, ...] = ()
    """Names of the tools put in front of the model for this step."""


@dataclass(frozen=True, kw_only=True)
class ModelDelta(EventBase):
    """A piece of streamed model output."""

    type: Literal["model_delta"] = field(default="model_delta", init=False)
    """Always ``model_delta``."""
    step: int
    """The step whose model call is streaming."""
    text: str
    """The new piece of text (chunks that arrive close together come as one delta)."""
    channel: Literal["text", "reasoning"] = "text"
    """``reasoning`` for provider reasoning streams (DeepSeek-R1 ``reasoning_content``)."""


@dataclass(frozen=True, kw_only=True)
class ModelFinished(EventBase):
    """A model call ended (or failed): what was sent, what came back, and what it cost."""

    type: Literal["model_finished"] = field(default="model_finished", init=False)
    """Always ``model_finished``."""
    step: int
    """The step this model call belongs to."""
    model: str = ""
    """Model name as the client reports it."""
    text: str = ""
    """Raw text as the model wrote it (before any cut at a hallucinated ``Observation:``)."""
    reasoning: str = ""
    """Provider reasoning text, when the provider sends it."""
    thought: str = ""
    """The step's Thought as parsed (ReAct) or the model's text/reasoning (native tools)."""
    tool_calls: tuple[dict[str, Any], ...] = ()
    """Requested actions: ``{"id", "name", "arguments"}`` with arguments as the raw JSON string."""
    final_answer: str | None = None
    """The answer, when this reply is a final answer."""
    format_error: str | None = None
    """Why the reply could not be understood (it is then neither action nor answer)."""
    error: str | None = None
    """Why the model call itself failed (connection, auth, timeout...)."""
    usage: Usage = field(default_factory=Usage)
    """Tokens of this call (the provider's count, or an estimate when it sends none)."""
    latency_ms: float = 0.0
    """Wall-clock time of the model call."""
    ttft_ms: float | None = None
    """Time to the first streamed token, when streaming."""
    finish_reason: str | None = None
    """Why the model stopped (``stop``, ``length``, ``tool_calls``, ``stop_at_observation``...)."""
    retried_after: tuple[str, ...] = ()
    """Failed attempts the client repeated before this reply: HTTP codes (``"503"``) or ``"connection"``."""
    messages: tuple[dict[str, Any], ...] = ()
    """The messages sent to the model after the first ``messages_kept`` ones (see ``full_messages``)."""
    messages_kept: int = 0
    """How many leading messages were the same as in the run's previous model call (0: ``messages`` is all).

    A run resends its whole context every step; storing only what changed keeps logs linear in size.
    ``with_full_messages`` restores the exact request of every call.
    """


@dataclass(frozen=True, kw_only=True)
class ToolStarted(EventBase):
    """A tool call began."""

    type: Literal["tool_started"] = field(default="tool_started", init=False)
    """Always ``tool_started``."""
    step: int
    """The step whose action this call is."""
    call_id: str
    """Matches the ToolFinished event of the same call."""
    tool: str
    """Name of the tool called (as the model wrote it, even if no such tool exists)."""
    arguments: dict[str, Any] = field(default_factory=dict)
    """Arguments as parsed from the model's request (before validation)."""


@dataclass(frozen=True, kw_only=True)
class ToolFinished(EventBase):
    """A tool call returned (or failed)."""

    type: Literal["tool_finished"] = field(default="tool_finished", init=False)
    """Always ``tool_finished``."""
    step: int
    """The step whose action this call is."""
    call_id: str
    """Matches the ToolStarted event of the same call."""
    tool: str
    """Name of the tool called."""
    output: str = ""
    """What the model sees as the Observation (already truncated)."""
    details: Any = None
    """Structured result for the UI (e.g. search results as links); never sent to the model."""
    error: str | None = None
    """Set when the call failed: unknown tool, invalid arguments, exception, timeout."""
    duration_ms: float = 0.0
    """Wall-clock time of the call, measured around the tool function only."""
    truncated: bool = False
    """True when ``output`` was cut to the observation size limit."""
    outside: str | None = None
    """Where the output came from when it is outside content (a URL, search results, an MCP server): see ``taint``."""
    reused_from: dict[str, Any] | None = None
    """Set when the tool was not called again: where this result was recorded (``session``, ``run``, ``step``,
    ``call_id`` of the original run a fork started from)."""


@dataclass(frozen=True, kw_only=True)
class ApprovalRequested(EventBase):
    """A tool marked as needing approval is about to run: the run waits for a person to decide."""

    type: Literal["approval_requested"] = field(default="approval_requested", init=False)
    """Always ``approval_requested``."""
    step: int
    """The step whose action waits."""
    call_id: str
    """The call waiting; its ToolStarted and ToolFinished carry the same id."""
    tool: str
    """Name of the tool that needs approval."""
    arguments: dict[str, Any] = field(default_factory=dict)
    """The arguments the tool would run with, for the person to judge."""
    reason: str | None = None
    """Why this call asks when outside content steers it ("step 2 read http://…; this call sends …")."""


@dataclass(frozen=True, kw_only=True)
class ApprovalDecided(EventBase):
    """A person (or the run's policy) approved or denied a tool call."""

    type: Literal["approval_decided"] = field(default="approval_decided", init=False)
    """Always ``approval_decided``."""
    step: int
    """The step whose action was decided."""
    call_id: str
    """The call decided (see ApprovalRequested)."""
    tool: str
    """Name of the tool."""
    approved: bool
    """True when the call may run; a denied call ends with an error observation."""
    by: str = "user"
    """``user`` when a person decided, ``policy`` when settings approved every call (``--yes``)."""


@dataclass(frozen=True, kw_only=True)
class OutputFlagged(EventBase):
    """The output check found something (secrets, by default) and masked it before it was shown or stored."""

    type: Literal["output_flagged"] = field(default="output_flagged", init=False)
    """Always ``output_flagged``."""
    step: int
    """The step whose output was checked."""
    source: str
    """``tool_output`` or ``final_answer``."""
    findings: tuple[dict[str, Any], ...] = ()
    """What was found: kind, label and the masked form; never the secret itself."""
    call_id: str | None = None
    """The tool call whose output was masked, when the source is ``tool_output``."""


@dataclass(frozen=True, kw_only=True)
class CallRepeated(EventBase):
    """The model asked for exactly a call it made earlier in the run (same tool, same canonical arguments)."""

    type: Literal["call_repeated"] = field(default="call_repeated", init=False)
    """Always ``call_repeated``."""
    step: int
    """The step that repeated the call."""
    call_id: str
    """The repeating call; its ToolFinished (with the earlier result restated) carries the same id."""
    tool: str
    """Name of the tool."""
    arguments: dict[str, Any] = field(default_factory=dict)
    """The arguments, the same as the earlier call's."""
    first_step: int
    """The step that made the call first (its result is the one restated)."""
    repeats: int
    """How many repeated calls the run has made so far, this one included."""
    ran: bool = False
    """False: not run again (``repeat_policy`` ``redirect``); True: run again (``allow``)."""


@dataclass(frozen=True, kw_only=True)
class AnswerRequested(EventBase):
    """After repeated calls the model's next request is narrowed: it is asked for the answer (or another step)."""

    type: Literal["answer_requested"] = field(default="answer_requested", init=False)
    """Always ``answer_requested``."""
    step: int
    """The step whose repeat led to this; the next step's request is the narrowed one."""
    repeats: int
    """Repeated calls so far in the run."""
    narrowing: str
    """How the next request is narrowed, in the protocol's words (the schema, ``tool_choice`` or a message)."""


@dataclass(frozen=True, kw_only=True)
class FinalAnswer(EventBase):
    """The run produced its answer."""

    type: Literal["final_answer"] = field(default="final_answer", init=False)
    """Always ``final_answer``."""
    step: int
    """The step that gave the answer."""
    text: str
    """The answer, as shown to the user."""


@dataclass(frozen=True, kw_only=True)
class RunFinished(EventBase):
    """The run ended; exactly one per run, always last."""

    type: Literal["run_finished"] = field(default="run_finished", init=False)
    """Always ``run_finished``."""
    status: RunStatus
    """How the run ended: ``completed``, ``max_steps``, ``timeout``, ``cancelled``, ``format_error`` or ``error``."""
    final_answer: str | None = None
    """The answer, when the run completed."""
    error: str | None = None
    """Human-readable reason for any status other than ``completed``."""
    steps: int = 0
    """Steps the run took (the last step number reached)."""
    tool_calls: int = 0
    """Tool calls made in the run."""
    usage: Usage = field(default_factory=Usage)
    """Token totals over the run's model calls."""
    duration_ms: float = 0.0
    """Wall-clock time of the run."""


Event: TypeAlias = (
    RunStarted
    | RunResumed
    | StepStarted
    | ModelDelta
    | ModelFinished
    | ToolStarted
    | ToolFinished
    | ApprovalRequested
    | ApprovalDecided
    | OutputFlagged
    | CallRepeated
    | AnswerRequested
    | FinalAnswer
    | RunFinished
    | RunForked
    | ModelSampled
)
"""Any event: one closed union, told apart by ``type``. Handle it with ``match`` and end with ``assert_never``."""

EVENT_TYPES: dict[str, type[Event]] = {cls.type: cls for cls in get_args(Event)}
"""Each event class by its ``type`` tag."""


class EventFormatError(ValueError):
    """A dict could not be turned into an event; the message names the field."""


@cache
def _adapter() -> TypeAdapter[Event]:
    """Validates any event, choosing the class by its ``type`` (built on first use: it takes a moment)."""
    return TypeAdapter(Annotated[Event, Field(discriminator="type")])


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from ``to_dict()`` output, validating every field."""
    if not isinstance(data, dict):
        raise EventFormatError(f"event must be an object, got {type(data).__name__}")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in EVENT_TYPES:
        raise EventFormatError(f"type: unknown event type {kind!r}")
    try:
        return _adapter().validate_python(data, strict=False)
    except Exception as exc:  # pydantic.ValidationError, but keep the message short and specific
        raise EventFormatError(_first_error(exc, kind)) from None


def _first_error(exc: Exception, kind: str) -> str:
    errors: Callable[[], list[dict[str, Any]]] | None = getattr(exc, "errors", None)  # pydantic's ValidationError
    if callable(errors):
        first = errors()[0]
        loc = ".".join(str(p) for p in first.get("loc", ())[1:])  # the first part is the tag: the kind, said below
        return f"{loc or 'event'}: {first.get('msg', 'invalid')} (in a {kind!r} event)"
    return f"invalid {kind!r} event: {exc}"


def full_messages(event: ModelFinished, previous: dict[str, tuple[dict[str, Any], ...]]) -> tuple[dict[str, Any], ...]:
    """The complete request of ``event``, given each run's previous request in ``previous`` (updated here)."""
    full = previous.get(event.run_id, ())[: event.messages_kept] + event.messages
    previous[event.run_id] = full
    return full


def with_full_messages(events: Iterable[Event]) -> Iterator[Event]:
    """The same events, each ModelFinished carrying the complete request it sent (``messages_kept`` = 0)."""
    previous: dict[str, tuple[dict[str, Any], ...]] = {}
    for event in events:
        if isinstance(event, ModelFinished):
            full = full_messages(event, previous)
            if event.messages_kept:
                event = dataclasses.replace(event, messages=full, messages_kept=0)
        yield event


def final_answer(events: list[Event] | tuple[Event, ...]) -> str | None:
    """The final answer of the last run in ``events``, if it has one."""
    for event in reversed(events):
        if isinstance(event, RunFinished):
            return event.final_answer
    return None
