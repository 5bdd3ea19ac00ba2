"""OpenTelemetry export: GenAI semantic conventions, valid OTLP/JSON, and the SDK's exporter into a stub collector."""

from __future__ import annotations

import base64
import json
import re
import socket
import sys
from typing import Any

import pytest

from agent_core import Agent
from agent_core.events import Event
from agent_core.testing import Reply, ScriptedModel
from agent_core.tools import builtin_tools
from agent_core.trace_export import (
    OtelExportError,
    OtelUnavailable,
    SpanData,
    build_spans,
    otel_sdk_available,
    otlp_endpoint,
    provider_for,
    send_otlp,
    to_otlp_json,
)
from agent_core.trace_export.otel import is_openinference
from tests.observability.builders import MODEL, PRICES, T0, session, started, step, tool_start
from tests.observability.conftest import Collector
from tests.observability.span_dicts import expected_spans, plain, spans_of

T0_NS = round(T0 * 1e9)


def cost(prompt: int, completion: int) -> float:
    """What ``test-model`` charges: $2 / $8 per million tokens."""
    return (prompt * 2.0 + completion * 8.0) / 1_000_000


def view(span: SpanData) -> dict[str, Any]:
    """A span without its ids, times in ms from T0."""
    return {
        "name": span.name,
        "kind": span.kind,
        "child": span.parent_span_id is not None,
        "ms": (round((span.start_ns - T0_NS) / 1e6, 3), round((span.end_ns - T0_NS) / 1e6, 3)),
        "attributes": {k: v for k, v in span.attributes.items() if not is_openinference(k)},  # see test_otel_live
        "error": span.error,
    }


COMMON = {"gen_ai.provider.name": "openai", "gen_ai.system": "openai", "gen_ai.request.temperature": 0.0}


def chat(step: int, ms: tuple[float, float], usage: tuple[int, int], **extra: Any) -> dict[str, Any]:
    """The expected view of a ``chat test-model`` span."""
    error = extra.pop("error", None)
    attributes = {
        "gen_ai.operation.name": "chat",
        **COMMON,
        "gen_ai.request.model": MODEL,
        "gen_ai.usage.input_tokens": usage[0],
        "gen_ai.usage.output_tokens": usage[1],
        **extra,
        "sparrow.step": step,
        "sparrow.usage.estimated": False,
        "sparrow.latency_ms": ms[1] - ms[0],
        "sparrow.cost_usd": cost(*usage),
    }
    return {
        "name": f"chat {MODEL}",
        "kind": "client",
        "child": True,
        "ms": ms,
        "attributes": attributes,
        "error": error,
    }


def tool(name: str, call_id: str, ms: tuple[float, float], error: str | None = None) -> dict[str, Any]:
    """The expected view of an ``execute_tool`` span of step 1."""
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.id": call_id,
        "gen_ai.tool.type": "function",
        "sparrow.step": 1,
        "sparrow.tool.duration_ms": ms[1] - ms[0],
        "sparrow.tool.truncated": False,
    }
    if error:
        attributes["error.type"] = "tool_error"
    return {"name": f"execute_tool {name}", "kind": "internal", "child": True, "ms": ms, "attributes": attributes,
            "error": error}  # fmt: skip


def test_spans_of_a_session_follow_the_genai_conventions() -> None:
    spans = build_spans(session(), session_id="s1", prices=PRICES)
    assert [view(s) for s in spans] == [
        {
            "name": "invoke_agent sparrow",
            "kind": "internal",
            "child": False,
            "ms": (0.0, 1500.0),
            "attributes": {
                "gen_ai.operation.name": "invoke_agent",
                **COMMON,
                "gen_ai.request.model": MODEL,
                "gen_ai.agent.name": "sparrow",
                "gen_ai.conversation.id": "s1",
                "gen_ai.usage.input_tokens": 3500,
                "gen_ai.usage.output_tokens": 105,
                "sparrow.run.id": "r1",
                "sparrow.run.status": "completed",
                "sparrow.run.steps": 3,
                "sparrow.run.tool_calls": 2,
                "sparrow.protocol": "react",
                "sparrow.usage.estimated": False,
                "sparrow.cost_usd": cost(1000, 50) + cost(1200, 25) + cost(1300, 30),
            },
            "error": None,
        },
        chat(
            1, (0.0, 500.0), (1000, 50), **{"gen_ai.response.finish_reasons": ("tool_calls",), "sparrow.ttft_ms": 125.0}
        ),
        tool("calculator", "call_1", (500.0, 750.0)),
        tool("date_calculator", "call_2", (500.0, 625.0), "bad date"),
        chat(2, (750.0, 1000.0), (1200, 25), **{"sparrow.format_error": "no Action line"}),
        chat(
            3, (1000.0, 1500.0), (1300, 30), **{"gen_ai.response.finish_reasons": ("stop",), "sparrow.ttft_ms": 250.0}
        ),
        {
            "name": "invoke_agent sparrow",
            "kind": "internal",
            "child": False,
            "ms": (10_000.0, 10_250.0),
            "attributes": {
                "gen_ai.operation.name": "invoke_agent",
                **COMMON,
                "gen_ai.request.model": "llama3:8b",
                "gen_ai.agent.name": "sparrow",
                "gen_ai.conversation.id": "s1",
                "gen_ai.usage.input_tokens": 0,
                "gen_ai.usage.output_tokens": 0,
                "sparrow.run.id": "r2",
                "sparrow.run.status": "error",
                "sparrow.run.steps": 1,
                "sparrow.run.tool_calls": 0,
                "sparrow.protocol": "react",
                "sparrow.usage.estimated": False,
                "error.type": "error",
            },
            "error": "connection refused",
        },
        {
            "name": "chat llama3:8b",
            "kind": "client",
            "child": True,
            "ms": (10_000.0, 10_250.0),
            "attributes": {
                "gen_ai.operation.name": "chat",
                **COMMON,
                "gen_ai.request.model": "llama3:8b",
                "gen_ai.usage.input_tokens": 0,
                "gen_ai.usage.output_tokens": 0,
                "sparrow.step": 1,
                "sparrow.usage.estimated": False,
                "sparrow.latency_ms": 250.0,
                "error.type": "model_error",
            },
            "error": "connection refused",
        },
    ]


def test_ids_are_valid_stable_and_tie_children_to_their_run() -> None:
    spans = build_spans(session(), session_id="s1")
    assert all(re.fullmatch(r"[0-9a-f]{32}", s.trace_id) and re.fullmatch(r"[0-9a-f]{16}", s.span_id) for s in spans)
    runs = [s for s in spans if s.parent_span_id is None]
    assert len(runs) == 2 and runs[0].trace_id != runs[1].trace_id  # one trace per run
    for child in spans:
        if child.parent_span_id is not None:
            parent = next(r for r in runs if r.span_id == child.parent_span_id)
            assert child.trace_id == parent.trace_id and parent.start_ns <= child.start_ns <= child.end_ns
    assert len({s.span_id for s in spans}) == len(spans)
    assert build_spans(session(), session_id="s1") == spans  # exporting twice gives the same trace
    assert build_spans(session(), session_id="fork")[0].trace_id != spans[0].trace_id


def test_an_interrupted_run_has_an_unfinished_run_span_and_an_interrupted_tool_span() -> None:
    events: list[Event] = [started("r", "q"), step("r", 1, 0.0), tool_start("r", 1, "c1", "web_search", 0.25)]
    run, call = build_spans(events)
    assert (run.attributes["sparrow.run.status"], run.error, "error.type" in run.attributes) == (
        "unfinished",
        None,
        False,
    )
    assert (call.name, call.attributes["error.type"], call.error, call.end_ns - call.start_ns) == (
        "execute_tool web_search",
        "interrupted",
        "the tool call never finished (the run was interrupted)",
        0,
    )


def native_tools_run() -> list[Event]:
    """A real run with the native tools protocol: one tool call, then the answer."""
    script = ScriptedModel(
        [Reply.call("calculator", text="Let me compute.", expression="6*7"), Reply(text="42", usage=(200, 2))],
        name="deepseek-chat",
    )
    return list(Agent(script, builtin_tools(), protocol="tools", instructions="Be brief.").run("What is 6*7?"))


def test_prompts_and_results_are_only_recorded_when_asked() -> None:
    content_keys = {"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments"}
    assert not [s for s in build_spans(native_tools_run()) if content_keys & set(s.attributes)]
    run, first, call, second = build_spans(native_tools_run(), include_content=True)
    assert json.loads(str(run.attributes["gen_ai.input.messages"])) == [
        {"role": "user", "parts": [{"type": "text", "content": "What is 6*7?"}]}
    ]
    assert json.loads(str(run.attributes["gen_ai.output.messages"])) == [
        {"role": "assistant", "parts": [{"type": "text", "content": "42"}], "finish_reason": "stop"}
    ]
    assert json.loads(str(first.attributes["gen_ai.output.messages"])) == [
        {
            "role": "assistant",
            "parts": [
                {"type": "text", "content": "Let me compute."},
                {"type": "tool_call", "id": "call_1", "name": "calculator", "arguments": {"expression": "6*7"}},
            ],
            "finish_reason": "tool_calls",
        }
    ]
    assert (call.attributes["gen_ai.tool.call.arguments"], call.attributes["gen_ai.tool.call.result"]) == (
        '{"expression": "6*7"}',
        "42",
    )
    sent = json.loads(str(second.attributes["gen_ai.input.messages"]))
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool"]
    assert sent[1:] == [
        {"role": "user", "parts": [{"type": "text", "content": "What is 6*7?"}]},
        {
            "role": "assistant",
            "parts": [
                {"type": "text", "content": "Let me compute."},
                {"type": "tool_call", "id": "call_1", "name": "calculator", "arguments": {"expression": "6*7"}},
            ],
        },
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1", "response": "42"}]},
    ]
    assert first.attributes["gen_ai.provider.name"] == "deepseek"
    assert call.attributes["gen_ai.tool.description"].startswith("Evaluate arithmetic exactly")


@pytest.mark.parametrize(
    ("model", "provider"),
    [
        ("gpt-4o-mini", "openai"),
        ("o3-mini", "openai"),
        ("deepseek-reasoner", "deepseek"),
        ("qwen-plus", "dashscope"),
        ("moonshot-v1-8k", "moonshot_ai"),
        ("qwen2.5:7b", "openai"),
        ("llama3", "openai"),
    ],
)
def test_provider_for(model: str, provider: str) -> None:
    assert provider_for(model) == provider


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, None),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/"}, "http://collector:4318/v1/traces"),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b/t"},
            "http://b/t",
        ),
    ],
)
def test_otlp_endpoint(environ: dict[str, str], expected: str | None) -> None:
    assert otlp_endpoint(environ) == expected


def proto_json(document: dict[str, Any]) -> str:
    """OTLP/JSON → proto3 JSON: OTLP writes trace and span ids as hex, the protobuf mapping wants base64."""
    for resource in document["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    return json.dumps(document)


def test_otlp_json_is_a_valid_export_trace_service_request() -> None:
    service = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
    json_format = pytest.importorskip("google.protobuf.json_format")
    events = session() + native_tools_run()
    document = json.loads(to_otlp_json(events, session_id="s1", prices=PRICES, include_content=True))
    span = document["resourceSpans"][0]["scopeSpans"][0]["spans"][1]
    assert (span["startTimeUnixNano"], span["kind"], span["attributes"][0]) == (
        str(T0_NS),
        3,
        {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
    )
    # Parse strictly: an unknown or misspelt field, a wrong type or a bad enum fails here.
    request = json_format.Parse(proto_json(document), service.ExportTraceServiceRequest())
    spans = build_spans(events, session_id="s1", prices=PRICES, include_content=True)
    assert spans_of(request) == expected_spans(spans)
    resource = {a.key: plain(a.value) for a in request.resource_spans[0].resource.attributes}
    assert resource["service.name"] == "sparrow"
    assert request.resource_spans[0].scope_spans[0].scope.name == "agent_core.trace_export"


def test_sent_through_the_sdk_exporter_the_collector_receives_the_same_spans(
    collector: Collector, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.base_url)
    events = session() + native_tools_run()
    assert otel_sdk_available()
    assert send_otlp(events, session_id="s1", prices=PRICES, include_content=True, timeout=5) == 12
    assert (collector.paths, collector.content_types) == (["/v1/traces"], ["application/x-protobuf"])
    [request] = collector.requests
    spans = build_spans(events, session_id="s1", prices=PRICES, include_content=True)
    assert spans_of(request) == expected_spans(spans)
    resource = {a.key: plain(a.value) for a in request.resource_spans[0].resource.attributes}
    assert resource["service.name"] == "sparrow"


def test_a_refusing_endpoint_is_a_clear_error(collector: Collector) -> None:
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http")
    collector.status = 400
    url = f"{collector.base_url}/v1/traces"
    with pytest.raises(OtelExportError, match=f"^the OTLP endpoint {re.escape(url)} did not accept 8 spans: .+"):
        send_otlp(session(), endpoint=url, timeout=5)


def test_an_unreachable_endpoint_is_a_clear_error_within_the_timeout() -> None:
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http")
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1/traces"
    with pytest.raises(OtelExportError, match=f"^the OTLP endpoint {re.escape(url)} did not accept"):
        send_otlp(session(), endpoint=url, timeout=1)


def test_without_the_otel_extra_sending_explains_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "agent_core.trace_export.otel_sdk", raising=False)
    monkeypatch.setitem(sys.modules, "opentelemetry.exporter.otlp.proto.http.trace_exporter", None)
    assert not otel_sdk_available()
    with pytest.raises(OtelUnavailable, match=re.escape("pip install 'sparrow-agent[otel]'")) as caught:
        send_otlp(session())
    assert "opentelemetry.exporter.otlp.proto.http.trace_exporter is missing" in str(caught.value)
    assert json.loads(to_otlp_json(session()))["resourceSpans"]  # the JSON export needs no extra
