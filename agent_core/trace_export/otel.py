"""OpenTelemetry spans for a session's runs, no SDK needed, with attributes of two conventions: the GenAI semantic
conventions and OpenInference's (read by Arize Phoenix and others). Each run becomes one trace: an ``invoke_agent
sparrow`` span (kind INTERNAL, OpenInference ``AGENT``) with a ``chat {model}`` child (kind CLIENT, ``LLM``) per
model call and an ``execute_tool {name}`` child (kind INTERNAL, ``TOOL``) per tool call. Token usage goes in
``gen_ai.usage.input_tokens`` / ``gen_ai.usage.output_tokens`` (cached and reasoning tokens beside them) and
``llm.token_count.*``; Sparrow's own figures use the ``sparrow.`` prefix (repeated calls included); ``error.type``
is the run's status on the run span (``max_steps``, ``timeout``, ``cancelled``, ``format_error``, ``error``,
``repeated``), ``model_error`` on a failed model call, ``tool_error`` on a failed tool call and ``interrupted`` on
one that never finished. Ids are derived from the session and run ids, so exporting the same run twice gives the
same trace. What people wrote or read (prompts, replies, tool arguments and results, OpenInference's
``input.value`` / ``output.value`` and flattened messages) is opt-in (``include_content=True``), as the
conventions ask, because it may hold personal data.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from agent_core.events import Event, ModelFinished, ToolFinished, ToolStarted, Usage, with_full_messages
from agent_core.models.pricing import DEFAULT_TABLE, PriceTable
from agent_core.views.metrics import turn_metrics
from agent_core.views.timeline import TimedCall, timed_call, turn_calls
from agent_core.views.transcript import Transcript
from agent_core.views.turns import ActionView, TurnView

AGENT_NAME = "sparrow"
"""``gen_ai.agent.name`` of the run spans."""

AttributeValue = str | bool | int | float | tuple[str, ...]
"""What a span attribute may hold here (a subset of OpenTelemetry's AnyValue)."""
Attributes = dict[str, AttributeValue | None]
"""Attribute values before the ``None`` ones are left out (``_clean``)."""

_PROVIDERS: tuple[tuple[str, str], ...] = (
    ("gpt-", "openai"),
    ("chatgpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("deepseek-", "deepseek"),
    ("qwen-", "dashscope"),
    ("moonshot-", "moonshot_ai"),
    ("kimi-", "moonshot_ai"),
    ("claude-", "anthropic"),
    ("gemini-", "gcp.gemini"),
    ("mistral-", "mistral_ai"),
    ("grok-", "x_ai"),
)


@dataclass(frozen=True, slots=True)
class SpanData:
    """One finished span, independent of any OpenTelemetry SDK."""

    trace_id: str
    """32 lower-case hex digits."""
    span_id: str
    """16 lower-case hex digits."""
    parent_span_id: str | None
    """The run span's id for a child span; None for the run span."""
    name: str
    kind: Literal["internal", "client"]
    start_ns: int
    """Unix time in nanoseconds."""
    end_ns: int
    attributes: Mapping[str, AttributeValue]
    error: str | None = None
    """Set when the operation failed: the span status is then ERROR with this message."""


def provider_for(model: str) -> str:
    """Best-knowledge ``gen_ai.provider.name`` of a model name; ``openai`` (the API Sparrow speaks) otherwise."""
    name = model.strip().lower()
    if ":" not in name:  # "qwen2.5:7b" style names are local (Ollama) models
        for prefix, provider in _PROVIDERS:
            if name.startswith(prefix):
                return provider
    return "openai"


def build_spans(
    events: Iterable[Event],
    *,
    session_id: str | None = None,
    provider: str | None = None,
    include_content: bool = False,
    prices: PriceTable = DEFAULT_TABLE,
    starters: Mapping[str, str] | None = None,
) -> list[SpanData]:
    """Spans of every run in ``events``: the run span first, then its model and tool calls in start order.

    ``starters`` (run id → who started it) sets ``user.id`` on each run span.
    """
    spans: list[SpanData] = []
    if include_content:
        events = with_full_messages(events)  # the spans carry each call's whole request
    options = {"session_id": session_id, "provider": provider, "include_content": include_content, "prices": prices}
    for run in Transcript.from_events(events).runs:
        spans += _run_spans(run, _Context(run, started_by=(starters or {}).get(run.run_id), **options))
    return spans


def run_span(turn: TurnView, **options: Any) -> SpanData:
    """The run span of one folded run, exactly as :func:`build_spans` makes it (same options)."""
    return _run_spans(turn, _Context(turn, **options))[0]


def call_span(turn: TurnView, index: int, **options: Any) -> SpanData:
    """The span of the run's ``index``-th call (in start order), exactly as :func:`build_spans` makes it."""
    return _call_span(timed_call(turn.calls[index]), index, _Context(turn, **options))


class _Context:
    """What every span of one run needs to know."""

    def __init__(
        self,
        run: TurnView,
        *,
        session_id: str | None = None,
        provider: str | None = None,
        include_content: bool = False,
        prices: PriceTable = DEFAULT_TABLE,
        started_by: str | None = None,
    ) -> None:
        self.session_id = session_id
        self.started_by = started_by
        self.content = include_content
        self.prices = prices.for_run(run.run_started)
        self.run_id = run.run_id
        self.run = run
        self.started = run.run_started
        self.model = run.model
        self.provider = provider or provider_for(self.model)
        self.trace_id = _hex_id(16, "trace", session_id or "", self.run_id)
        self.run_span_id = _hex_id(8, "run", session_id or "", self.run_id)
        self.descriptions = _tool_descriptions(self.started.tools if self.started else ())
        self.schemas = {_tool_name(s): s for s in (self.started.tools if self.started else ())}

    def temperature(self) -> float | None:
        """The run's sampling temperature, when it recorded one."""
        value = self.started.settings.get("temperature") if self.started else None
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    def parameters(self) -> dict[str, Any]:
        """The sampling parameters sent with each model call (OpenInference's ``llm.invocation_parameters``)."""
        temperature = self.temperature()
        return {"model": self.model} | ({"temperature": temperature} if temperature is not None else {})


def _run_spans(run: TurnView, ctx: _Context) -> list[SpanData]:
    calls = turn_calls(run)
    children = [_call_span(call, index, ctx) for index, call in enumerate(calls)]
    start = min([_ns(run.first_ts), *(c.start_ns for c in children)])
    end = max([_ns(run.last_ts), *(c.end_ns for c in children)])
    return [_agent_span(run, ctx, start, end), *children]


def _agent_span(run: TurnView, ctx: _Context, start_ns: int, end_ns: int) -> SpanData:
    metrics = turn_metrics(run, prices=ctx.prices)
    finished = run.run_finished
    attributes: Attributes = {
        **_common(ctx, "invoke_agent"),
        "gen_ai.agent.name": AGENT_NAME,
        "gen_ai.conversation.id": ctx.session_id,
        "user.id": ctx.started_by,  # OpenTelemetry's and OpenInference's name for the person behind the run
        "gen_ai.usage.input_tokens": metrics.usage.prompt_tokens,
        "gen_ai.usage.output_tokens": metrics.usage.completion_tokens,
        **usage_details(metrics.usage),
        "sparrow.run.id": ctx.run_id,
        "sparrow.run.status": metrics.status or "unfinished",
        "sparrow.run.steps": metrics.steps,
        "sparrow.run.tool_calls": metrics.tool_calls,
        "sparrow.protocol": ctx.started.protocol if ctx.started else None,
        "sparrow.usage.estimated": metrics.usage.estimated,
        "sparrow.cost_usd": metrics.cost,
    }
    error = None
    if finished is not None and finished.status != "completed":
        attributes["error.type"] = finished.status
        error = finished.error or finished.status
    if ctx.content:
        attributes.update(_run_content(run, ctx))
    question = ctx.started.question if ctx.started else None
    options = {"session_id": ctx.session_id, "content": ctx.content}
    attributes.update(openinference_agent(agent_name=AGENT_NAME, question=question, answer=run.answer_given, **options))
    attributes.update(run_repeat_attributes(run))
    name = f"invoke_agent {AGENT_NAME}"
    return SpanData(ctx.trace_id, ctx.run_span_id, None, name, "internal", start_ns, end_ns, _clean(attributes), error)


def _call_span(call: TimedCall, index: int, ctx: _Context) -> SpanData:
    if call.model_event is not None:
        return _model_span(call, call.model_event, index, ctx)
    return _tool_span(call, index, ctx)


def _model_span(call: TimedCall, m: ModelFinished, index: int, ctx: _Context) -> SpanData:
    model = m.model or ctx.model
    attributes: Attributes = {
        **_common(ctx, "chat", model),
        "gen_ai.usage.input_tokens": m.usage.prompt_tokens,
        "gen_ai.usage.output_tokens": m.usage.completion_tokens,
        **usage_details(m.usage),
        "gen_ai.response.finish_reasons": (m.finish_reason,) if m.finish_reason else None,
        "sparrow.step": m.step,
        "sparrow.usage.estimated": m.usage.estimated,
        "sparrow.ttft_ms": m.ttft_ms,
        "sparrow.latency_ms": m.latency_ms,
        "sparrow.format_error": m.format_error,
        "sparrow.retried_after": m.retried_after or None,
        "sparrow.cost_usd": ctx.prices.cost(m.usage, model, m.ts),
        "error.type": "model_error" if m.error else None,
    }
    if ctx.content:
        attributes["gen_ai.input.messages"] = _json([_semconv_message(msg) for msg in m.messages])
        attributes["gen_ai.output.messages"] = _json([_output_message(m)])
    tools = ctx.started.tools if ctx.started else ()
    options = {"provider": ctx.provider, "session_id": ctx.session_id, "parameters": ctx.parameters()}
    attributes.update(openinference_llm(m, model=model, tools=tools, content=ctx.content, **options))
    return _child(ctx, "model", index, f"chat {model}", "client", call, attributes, m.error)


def _tool_span(call: TimedCall, index: int, ctx: _Context) -> SpanData:
    begun, done = call.tool_started, call.tool_finished
    either = done or begun
    assert either is not None
    error = done.error if done else "the tool call never finished (the run was interrupted)"
    attributes: Attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": either.tool,
        "gen_ai.tool.call.id": either.call_id,
        "gen_ai.tool.type": "function",
        "gen_ai.tool.description": ctx.descriptions.get(either.tool),
        "sparrow.step": either.step,
        "sparrow.tool.duration_ms": done.duration_ms if done else None,
        "sparrow.tool.truncated": done.truncated if done else None,
        "error.type": ("tool_error" if done else "interrupted") if error else None,
    }
    attributes.update(repeat_attributes(ctx.run, either.step, either.call_id))
    if ctx.content:
        attributes.update(_tool_content(begun, done))
    attributes.update(
        openinference_tool(
            begun, done, session_id=ctx.session_id, schema=ctx.schemas.get(either.tool), content=ctx.content
        )
    )
    return _child(ctx, "tool", index, f"execute_tool {either.tool}", "internal", call, attributes, error)


def _child(
    ctx: _Context,
    kind: str,
    index: int,
    name: str,
    span_kind: Literal["internal", "client"],
    call: TimedCall,
    attributes: Attributes,
    error: str | None,
) -> SpanData:
    span_id = _hex_id(8, kind, ctx.session_id or "", ctx.run_id, str(index))
    start, end = _ns(call.start), _ns(call.end)
    return SpanData(ctx.trace_id, span_id, ctx.run_span_id, name, span_kind, start, end, _clean(attributes), error)


def _common(ctx: _Context, operation: str, model: str | None = None) -> Attributes:
    return {
        "gen_ai.operation.name": operation,
        "gen_ai.provider.name": ctx.provider,
        # Pre-1.37 name of the same attribute, still read by several backends.
        "gen_ai.system": ctx.provider,
        "gen_ai.request.model": model or ctx.model or None,
        "gen_ai.request.temperature": ctx.temperature(),
    }


def _run_content(run: TurnView, ctx: _Context) -> dict[str, AttributeValue]:
    content: dict[str, AttributeValue] = {}
    if ctx.started is not None:
        content["gen_ai.input.messages"] = _json([_text_message("user", ctx.started.question)])
    answer = run.answer_given
    if answer is not None:
        content["gen_ai.output.messages"] = _json([{**_text_message("assistant", answer), "finish_reason": "stop"}])
    return content


def _tool_content(begun: ToolStarted | None, done: ToolFinished | None) -> dict[str, AttributeValue]:
    content: dict[str, AttributeValue] = {}
    if begun is not None:
        content["gen_ai.tool.call.arguments"] = _json(begun.arguments)
    if done is not None:
        content["gen_ai.tool.call.result"] = done.output
    return content


def _semconv_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI chat message in the conventions' ``{"role", "parts"}`` shape."""
    role = str(message.get("role", "user"))
    if role == "tool":
        part = {"type": "tool_call_response", "id": message.get("tool_call_id"), "response": message.get("content")}
        return {"role": role, "parts": [part]}
    parts = _text_parts(message.get("content"))
    for call in message.get("tool_calls") or ():
        function = call.get("function", {})
        parts.append(
            {"type": "tool_call", "id": call.get("id"), "name": function.get("name"), "arguments": _args(function)}
        )
    return {"role": role, "parts": parts}


def _output_message(m: ModelFinished) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"type": "reasoning", "content": m.reasoning}] if m.reasoning else []
    parts += _text_parts(m.text)
    for call in m.tool_calls:
        parts.append({"type": "tool_call", "id": call.get("id"), "name": call.get("name"), "arguments": _args(call)})
    return {"role": "assistant", "parts": parts, "finish_reason": m.finish_reason or ("error" if m.error else "stop")}


def _text_parts(content: Any) -> list[dict[str, Any]]:
    if not content:
        return []
    if isinstance(content, str):
        return [{"type": "text", "content": content}]
    if isinstance(content, Sequence):  # multi-part content: keep text, name the other kinds
        return [
            {"type": "text", "content": p.get("text", "")} if p.get("type") == "text" else {"type": str(p.get("type"))}
            for p in content
            if isinstance(p, Mapping)
        ]
    return [{"type": "text", "content": str(content)}]


def _text_message(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": text}]}


def _args(call: Mapping[str, Any]) -> Any:
    raw = call.get("arguments")
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def _tool_descriptions(schemas: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    found: dict[str, str] = {}
    for schema in schemas:
        function = schema.get("function", schema)
        if isinstance(function, Mapping) and function.get("name") and function.get("description"):
            found[str(function["name"])] = str(function["description"])
    return found


def _tool_name(schema: Mapping[str, Any]) -> str:
    function = schema.get("function", schema)
    return str(function.get("name", "")) if isinstance(function, Mapping) else ""


def _clean(attributes: Mapping[str, AttributeValue | None]) -> dict[str, AttributeValue]:
    """Leave out attributes without a value (OpenTelemetry has no null)."""
    return {key: value for key, value in attributes.items() if value is not None}


def _hex_id(size: int, *parts: str) -> str:
    """A stable id of ``size`` bytes as hex, never all zeros (which OpenTelemetry treats as invalid)."""
    digest = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[: size * 2]
    return digest if int(digest, 16) else digest[:-1] + "1"


def _ns(seconds: float) -> int:
    return round(seconds * 1e9)


def repeat_attributes(turn: TurnView, step: int, call_id: str) -> dict[str, int | bool]:
    """OpenTelemetry attributes of a tool call that repeated an earlier one (none for other calls)."""
    action = turn.latest_calls.get((step, call_id))
    repeated = action.repeated if action is not None else None
    if repeated is None:
        return {}
    return {"sparrow.tool.repeat_of_step": repeated.first_step, "sparrow.tool.not_run": not repeated.ran}


def run_repeat_attributes(turn: TurnView) -> dict[str, int]:
    """OpenTelemetry attributes of a run with repeated calls: how many, and after how many the answer was asked."""
    repeats = [a.repeated for a in turn.calls if isinstance(a, ActionView) and a.repeated is not None]
    asked = [s.answer_requested.repeats for s in turn.steps if s.answer_requested is not None]
    out = {"sparrow.run.repeats": len(repeats)} if repeats else {}
    return out | ({"sparrow.run.answer_requested_after": asked[0]} if asked else {})


def usage_details(usage: Usage) -> dict[str, int | None]:
    """``gen_ai.usage.cache_read.input_tokens`` and ``gen_ai.usage.reasoning.output_tokens``; None when not given."""
    return {
        "gen_ai.usage.cache_read.input_tokens": usage.cached_tokens or None,
        "gen_ai.usage.reasoning.output_tokens": usage.reasoning_tokens or None,
    }


TEXT, JSON = "text/plain", "application/json"
"""``input.mime_type`` / ``output.mime_type`` values."""

_LLM_PROVIDERS = {"gcp.gemini": "google", "mistral_ai": "mistralai", "moonshot_ai": "moonshot", "x_ai": "xai"}
"""GenAI ``gen_ai.provider.name`` values whose OpenInference ``llm.provider`` name differs."""

_PREFIXES = ("openinference.", "agent.", "session.", "llm.", "tool.", "input.", "output.")


def is_openinference(key: str) -> bool:
    """True for an OpenInference attribute (as opposed to a GenAI convention or ``sparrow.`` one)."""
    return key.startswith(_PREFIXES)


def openinference_agent(
    *, agent_name: str, session_id: str | None, question: str | None, answer: str | None, content: bool
) -> Attributes:
    """The run span: an AGENT span, with the question and the answer as its input and output when allowed."""
    attributes: Attributes = {"openinference.span.kind": "AGENT", "agent.name": agent_name, "session.id": session_id}
    if content:
        attributes.update(_value("input", question, TEXT))
        attributes.update(_value("output", answer, TEXT))
    return attributes


def openinference_llm(
    m: ModelFinished,
    *,
    model: str,
    provider: str,
    session_id: str | None,
    parameters: Mapping[str, Any],
    tools: Sequence[Mapping[str, Any]],
    content: bool,
) -> Attributes:
    """A model call: an LLM span with model, provider, token counts and (when allowed) the messages."""
    attributes: Attributes = {
        "openinference.span.kind": "LLM",
        "session.id": session_id,
        "llm.model_name": model,
        "llm.provider": _LLM_PROVIDERS.get(provider, provider),
        "llm.system": "openai",  # the API Sparrow speaks to every provider
        "llm.token_count.prompt": m.usage.prompt_tokens,
        "llm.token_count.completion": m.usage.completion_tokens,
        "llm.token_count.total": m.usage.total_tokens,
        "llm.invocation_parameters": _json(dict(parameters)),
    }
    if m.usage.cached_tokens:
        attributes["llm.token_count.prompt_details.cache_read"] = m.usage.cached_tokens
    if m.usage.reasoning_tokens:
        attributes["llm.token_count.completion_details.reasoning"] = m.usage.reasoning_tokens
    if content:
        attributes.update(_value("input", _json({"messages": list(m.messages)}), JSON))
        output, mime_type = (m.text, TEXT) if m.text or not m.tool_calls else (_json(list(m.tool_calls)), JSON)
        attributes.update(_value("output", output or None, mime_type))
        for index, message in enumerate(m.messages):
            attributes.update(_flat_message(f"llm.input_messages.{index}", message))
        attributes.update(_flat_output_message(m))
        for index, schema in enumerate(tools):
            attributes[f"llm.tools.{index}.tool.json_schema"] = _json(schema)
    return attributes


def openinference_tool(
    begun: ToolStarted | None,
    done: ToolFinished | None,
    *,
    session_id: str | None,
    schema: Mapping[str, Any] | None,
    content: bool,
) -> Attributes:
    """A tool call: a TOOL span with the tool's name, description and parameters, and (when allowed) its I/O."""
    either = done or begun
    assert either is not None
    function = (schema or {}).get("function", {})
    attributes: Attributes = {
        "openinference.span.kind": "TOOL",
        "session.id": session_id,
        "tool.name": either.tool,
        "tool.id": either.call_id,
        "tool.description": function.get("description"),
        "tool.parameters": _json(function["parameters"]) if "parameters" in function else None,
    }
    if content:
        if begun is not None:
            attributes.update(_value("input", _json(begun.arguments), JSON))
        if done is not None:
            attributes.update(_value("output", done.error or done.output, TEXT))
    return attributes


def _value(side: str, value: str | None, mime_type: str) -> Attributes:
    if value is None:
        return {}
    return {f"{side}.value": value, f"{side}.mime_type": mime_type}


def _flat_message(prefix: str, message: Mapping[str, Any]) -> Attributes:
    """One chat message as OpenInference's flattened ``message.*`` attributes."""
    attributes: Attributes = {
        f"{prefix}.message.role": str(message.get("role", "user")),
        f"{prefix}.message.content": _text(message.get("content")),
        f"{prefix}.message.tool_call_id": message.get("tool_call_id"),
    }
    for index, call in enumerate(message.get("tool_calls") or ()):
        function = call.get("function", {}) if isinstance(call, Mapping) else {}
        attributes.update(_flat_tool_call(f"{prefix}.message.tool_calls.{index}", call.get("id"), function))
    return attributes


def _flat_output_message(m: ModelFinished) -> Attributes:
    prefix = "llm.output_messages.0"
    attributes: Attributes = {f"{prefix}.message.role": "assistant", f"{prefix}.message.content": m.text or None}
    for index, call in enumerate(m.tool_calls):
        attributes.update(_flat_tool_call(f"{prefix}.message.tool_calls.{index}", call.get("id"), call))
    return attributes


def _flat_tool_call(prefix: str, call_id: Any, function: Mapping[str, Any]) -> Attributes:
    arguments = function.get("arguments")
    return {
        f"{prefix}.tool_call.id": str(call_id) if call_id else None,
        f"{prefix}.tool_call.function.name": function.get("name"),
        f"{prefix}.tool_call.function.arguments": arguments if isinstance(arguments, str) else _json(arguments),
    }


def _text(content: Any) -> str | None:
    """Message content as text: multi-part content keeps its text parts."""
    if content is None or isinstance(content, str):
        return content or None
    if isinstance(content, Sequence):
        parts = [str(p.get("text", "")) for p in content if isinstance(p, Mapping) and p.get("type") == "text"]
        return "\n".join(parts) or None
    return str(content)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
