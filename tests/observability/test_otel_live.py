"""Live OpenTelemetry: spans reach an OTLP receiver on 127.0.0.1 while the run goes, in both encodings."""

from __future__ import annotations

import importlib
import json
import logging
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")

from agent_core import Agent
from agent_core.events import Event, RunFinished, ToolFinished
from agent_core.runtime.session_runs import config_from_agent, resume_run
from agent_core.store import SessionStore, record_events
from agent_core.testing import FakeOpenAIServer, Reply, ScriptedModel
from agent_core.tools import Tool, calculator, tool
from agent_core.trace_export import SpanData, build_spans, send_otlp
from agent_core.trace_export.otlp import OtlpConfigError, export_target, parse_headers
from agent_core.trace_export.sending import RunSpans, close_all, live_export, sender_for
from tests.core.test_cli import DATE_ANSWER, DATE_STEP, SEED
from tests.observability.builders import (
    MODEL,
    PRICES,
    calculator_run,
    finished,
    resumed_run,
    session,
    started,
    step,
    tool_start,
)
from tests.observability.conftest import Collector
from tests.observability.otlp_receiver import OtlpReceiver
from tests.observability.span_dicts import expected_spans
from tests.store.helpers import arithmetic_agent

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How many spans will this run send?"
LOGGER = "agent_core.trace_export.sending"
AUTH = "Basic c3BhcnJvdzpzZWNyZXQ="  # base64("sparrow:secret"), as Langfuse wants it


@pytest.fixture(autouse=True)
def _fresh_senders() -> Iterator[None]:
    """Each test gets its own sender threads, stopped at the end (as at interpreter exit)."""
    yield
    close_all(timeout=5)


def waiting_tool(receiver: OtlpReceiver) -> Tool:
    """A tool that returns once the receiver holds a span: proof that spans arrive while the run goes."""

    @tool
    def wait_for_spans(count: int) -> str:
        """Wait until the OTLP receiver holds at least ``count`` spans (at most 10 s).

        Args:
            count: How many spans to wait for.
        """
        return "arrived" if receiver.wait_for(lambda spans: len(spans) >= count) else "not yet"

    return wait_for_spans


def script() -> list[str]:
    """Step 1 waits for the receiver, step 2 answers."""
    return [
        'Thought: wait for the first span\nAction: wait_for_spans\nAction Input: {"count": 1}',
        "Thought: it came\nFinal Answer: four",
    ]


def env_for(receiver: OtlpReceiver | str, **extra: str) -> dict[str, str]:
    """An environment pointing live export at the receiver, with short batching."""
    url = receiver if isinstance(receiver, str) else receiver.base_url
    return {"OTEL_EXPORTER_OTLP_ENDPOINT": url, "OTEL_BSP_SCHEDULE_DELAY": "50", **extra}


def expected(spans: list[SpanData]) -> list[dict[str, Any]]:
    """What the receiver should decode for ``spans``, sorted by span id."""
    return sorted(expected_spans(spans), key=lambda s: s["span"])


def run_live(agent: Agent, env: dict[str, str], **options: Any) -> tuple[list[Event], int]:
    """The run's events, and how many spans the receiver held when run_finished was yielded."""
    events: list[Event] = []
    at_finish = -1
    receiver: OtlpReceiver | None = options.pop("receiver", None)
    for event in live_export(agent.run(QUESTION), environ=env, **options):
        events.append(event)
        if isinstance(event, RunFinished) and receiver is not None:
            at_finish = len(receiver.spans())
    return events, at_finish


@pytest.mark.parametrize("protocol", ["http/protobuf", "http/json"])
def test_spans_arrive_during_the_run_as_one_tree(protocol: str) -> None:
    with OtlpReceiver() as receiver:
        env = env_for(
            receiver,
            OTEL_EXPORTER_OTLP_PROTOCOL=protocol,
            OTEL_EXPORTER_OTLP_HEADERS=f"Authorization={AUTH.replace(' ', '%20')},x-team=birds",
            OTEL_SERVICE_NAME="sparrow-tests",
            OTEL_RESOURCE_ATTRIBUTES="openinference.project.name=birds,service.name=ignored",
        )
        agent = Agent(ScriptedModel(script()), [waiting_tool(receiver)])
        events, at_finish = run_live(agent, env, session_id="s-live", receiver=receiver)
        assert receiver.wait_for(lambda spans: len(spans) == 4), receiver.rejected
    tool_done = next(e for e in events if isinstance(e, ToolFinished))
    assert (tool_done.output, events[-1].status, at_finish >= 1) == ("arrived", "completed", True)
    assert receiver.requests[0].spans[0]["name"] == "chat scripted"  # the first model call, sent mid-run
    assert sorted(receiver.spans(), key=lambda s: s["span"]) == expected(build_spans(events, session_id="s-live"))
    tree = {s["name"]: (s["parent"], s["trace"]) for s in receiver.spans()}
    root = next(s for s in receiver.spans() if s["parent"] is None)
    assert tree == {
        "invoke_agent sparrow": (None, root["trace"]),
        "chat scripted": (root["span"], root["trace"]),
        "execute_tool wait_for_spans": (root["span"], root["trace"]),
    }
    first = receiver.requests[0]
    content_type = "application/json" if protocol == "http/json" else "application/x-protobuf"
    assert (first.path, first.content_type, first.headers["authorization"], first.headers["x-team"]) == (
        "/v1/traces",
        content_type,
        AUTH,
        "birds",
    )
    assert (first.resource["service.name"], first.resource["openinference.project.name"]) == ("sparrow-tests", "birds")


def test_the_traces_endpoint_variable_and_gzip_are_honoured() -> None:
    with OtlpReceiver() as receiver:
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",  # the traces-specific variable wins
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"{receiver.base_url}/custom/traces",
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json",
            "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
            "OTEL_RESOURCE_ATTRIBUTES": "service.name=from-resource",
        }
        events, _ = run_live(Agent(ScriptedModel(["Final Answer: none"]), []), env)
        close_all()  # what interpreter exit does: the run span goes out
        assert receiver.wait_for(lambda spans: len(spans) == 2)
    assert {(r.path, r.content_type, r.headers.get("content-encoding")) for r in receiver.requests} == {
        ("/custom/traces", "application/json", "gzip")
    }
    assert receiver.requests[0].resource["service.name"] == "from-resource"  # OTEL_SERVICE_NAME would win
    assert events[-1].status == "completed"


def test_without_an_endpoint_the_events_pass_through_untouched() -> None:
    agent = Agent(ScriptedModel(["Final Answer: 1"]), [])
    source = agent.run(QUESTION)
    assert live_export(source, environ={}) is source


def by_kind(spans: list[SpanData]) -> dict[str, dict[str, Any]]:
    """The first span of each OpenInference kind, as its attributes."""
    found: dict[str, dict[str, Any]] = {}
    for span in spans:
        found.setdefault(str(span.attributes["openinference.span.kind"]), dict(span.attributes))
    return found


CALC_STEP = 'Thought: compute\nAction: calculator\nAction Input: {"expression": "6*7"}'


def calc_run() -> list[Event]:
    """A finished two-step run with one calculator call."""
    return list(Agent(ScriptedModel([CALC_STEP, "Thought: done\nFinal Answer: 42"]), [calculator]).run("6 times 7?"))


def test_openinference_attributes_without_content() -> None:
    kinds = by_kind(build_spans(calc_run(), session_id="s-oi"))
    assert set(kinds) == {"AGENT", "LLM", "TOOL"}
    agent, llm, calc = kinds["AGENT"], kinds["LLM"], kinds["TOOL"]
    assert (agent["agent.name"], agent["session.id"], llm["session.id"], calc["session.id"]) == ("sparrow",) + (
        "s-oi",
    ) * 3
    assert (llm["llm.model_name"], llm["llm.provider"], llm["llm.system"]) == ("scripted", "openai", "openai")
    prompt, completion = llm["llm.token_count.prompt"], llm["llm.token_count.completion"]
    assert prompt > 0 and completion > 0 and llm["llm.token_count.total"] == prompt + completion
    assert json.loads(llm["llm.invocation_parameters"]) == {"model": "scripted", "temperature": 0.0}
    assert (calc["tool.name"], calc["tool.id"]) == ("calculator", "call_1")
    assert json.loads(calc["tool.parameters"]) == calculator.parameters
    assert calc["tool.description"] == calculator.description
    content = ("input.", "output.", "llm.input_messages", "llm.output_messages", "llm.tools")
    assert not [k for attributes in kinds.values() for k in attributes if k.startswith(content)]


def test_openinference_attributes_with_content() -> None:
    kinds = by_kind(build_spans(calc_run(), session_id="s-oi", include_content=True))
    agent, llm, calc = kinds["AGENT"], kinds["LLM"], kinds["TOOL"]
    assert (agent["input.value"], agent["input.mime_type"], agent["output.value"]) == ("6 times 7?", "text/plain", "42")
    assert (calc["input.value"], calc["input.mime_type"], calc["output.value"]) == (
        '{"expression": "6*7"}',
        "application/json",
        "42",
    )
    sent = json.loads(llm["input.value"])["messages"]
    assert [m["role"] for m in sent] == ["system", "user"] and llm["input.mime_type"] == "application/json"
    assert (llm["llm.input_messages.0.message.role"], llm["llm.input_messages.1.message.content"]) == (
        "system",
        "6 times 7?",
    )
    assert (llm["llm.output_messages.0.message.role"], llm["llm.output_messages.0.message.content"]) == (
        "assistant",
        CALC_STEP,
    )
    assert json.loads(llm["llm.tools.0.tool.json_schema"])["function"]["name"] == "calculator"


def test_every_openinference_attribute_name_is_in_the_conventions() -> None:
    trace = pytest.importorskip("openinference.semconv.trace")
    known = {
        value
        for holder in (trace.SpanAttributes, trace.MessageAttributes, trace.ToolCallAttributes, trace.ToolAttributes)
        for name, value in vars(holder).items()
        if name.isupper() and isinstance(value, str)
    }
    kinds = {k.value for k in trace.OpenInferenceSpanKindValues}
    spans = build_spans(calc_run(), session_id="s", include_content=True)
    ours = {k for s in spans for k in s.attributes if not k.startswith(("gen_ai.", "sparrow.", "error."))}
    unknown = {key for key in ours if not all(part in known for part in re.split(r"\.\d+\.", key))}
    assert not unknown and {str(s.attributes["openinference.span.kind"]) for s in spans} <= kinds


@pytest.mark.parametrize(
    ("model", "provider"),
    [("gpt-4o-mini", "openai"), ("deepseek-chat", "deepseek"), ("gemini-2.5-pro", "google"), ("grok-4", "xai"),
     ("kimi-k2", "moonshot"), ("mistral-large", "mistralai"), ("claude-sonnet-4", "anthropic")],
)  # fmt: skip
def test_llm_provider_uses_the_openinference_names(model: str, provider: str) -> None:
    trace = pytest.importorskip("openinference.semconv.trace")
    events = list(Agent(ScriptedModel(["Final Answer: 1"], name=model), []).run("q"))
    llm = by_kind(build_spans(events))["LLM"]
    assert llm["llm.provider"] == provider and provider in {p.value for p in trace.OpenInferenceLLMProviderValues}


def test_content_follows_the_genai_opt_in_variable_unless_the_caller_decides() -> None:
    with OtlpReceiver() as receiver:
        opted_in = env_for(receiver, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="true")
        run_live(Agent(ScriptedModel(["Final Answer: yes"]), []), opted_in, session_id="a")
        run_live(Agent(ScriptedModel(["Final Answer: no"]), []), opted_in, session_id="b", include_content=False)
        close_all()
        assert receiver.wait_for(lambda spans: len(spans) == 4)
    roots = {s["attributes"]["session.id"]: s["attributes"] for s in receiver.spans() if s["parent"] is None}
    assert (roots["a"].get("output.value"), roots["b"].get("output.value")) == ("yes", None)


def closed_port() -> int:
    """A local port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def timed_runs(env: dict[str, str] | None, runs: int = 3) -> list[float]:
    """Seconds each of ``runs`` calculator runs takes (with live export when ``env`` is given)."""
    durations = []
    for _ in range(runs):
        agent = Agent(ScriptedModel([CALC_STEP, CALC_STEP, "Final Answer: 42"]), [calculator])
        started = time.perf_counter()
        events = list(live_export(agent.run("q"), environ=env) if env else agent.run("q"))
        durations.append(time.perf_counter() - started)
        assert events[-1].status == "completed"
    return durations


def report(what: str, baseline: list[float], measured: list[float], exit_cost: float) -> None:
    """Print the real numbers (``pytest -s``): the assertions use generous bounds."""
    print(
        f"\n{what}: run {min(measured) * 1000:.1f} ms (max {max(measured) * 1000:.1f}) vs "
        f"{min(baseline) * 1000:.1f} ms without export; exit flush {exit_cost * 1000:.1f} ms"
    )


def test_a_dead_collector_costs_one_warning_and_no_time(caplog: pytest.LogCaptureFixture) -> None:
    env = env_for(f"http://127.0.0.1:{closed_port()}", OTEL_BSP_SCHEDULE_DELAY="1")
    baseline = timed_runs(None)
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        dead = timed_runs(env, runs=5)
        sender = sender_for(export_target(env))
        deadline = time.monotonic() + 10
        while not sender.warned and time.monotonic() < deadline:
            time.sleep(0.01)
        dead += timed_runs(env, runs=5)  # after the failure: still quiet and fast
        started = time.perf_counter()
        close_all()
        exit_cost = time.perf_counter() - started
    warnings = [r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno >= logging.WARNING]
    report("dead collector", baseline, dead, exit_cost)
    assert len(warnings) == 1 and "cannot reach http://127.0.0.1:" in warnings[0], warnings
    assert max(dead) < max(baseline) + 1.0 and exit_cost < 1.0  # generous: the real numbers are printed


def test_a_collector_that_never_answers_does_not_hold_the_run() -> None:
    with socket.socket() as hole:  # accepts connections (the kernel's backlog) and never replies
        hole.bind(("127.0.0.1", 0))
        hole.listen(16)
        env = env_for(f"http://127.0.0.1:{hole.getsockname()[1]}", OTEL_EXPORTER_OTLP_TIMEOUT="3000")
        baseline = timed_runs(None)
        stuck = timed_runs(env)
        started = time.perf_counter()
        close_all(timeout=0.5)
        exit_cost = time.perf_counter() - started
    report("silent collector (exit wait bounded at 0.5 s)", baseline, stuck, exit_cost)
    assert max(stuck) < max(baseline) + 1.0 and exit_cost < 2.0


@pytest.mark.parametrize(
    ("variables", "problem"),
    [
        ({"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "gRPC is not supported"),
        ({"OTEL_EXPORTER_OTLP_HEADERS": "Authorization"}, "is not key=value"),
        ({"OTEL_EXPORTER_OTLP_TIMEOUT": "soon"}, "positive number of milliseconds"),
    ],
)
def test_unusable_settings_turn_export_off_with_one_warning(
    variables: dict[str, str], problem: str, caplog: pytest.LogCaptureFixture
) -> None:
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", **variables}
    with pytest.raises(OtlpConfigError, match=problem):
        export_target(env)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        for _ in range(2):
            source = Agent(ScriptedModel(["Final Answer: 1"]), []).run(QUESTION)
            assert live_export(source, environ=env) is source
    assert len([r for r in caplog.records if problem in r.getMessage()]) <= 1


def test_settings_that_turn_export_off_and_header_decoding() -> None:
    base = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318/"}
    assert export_target(base).endpoint == "http://127.0.0.1:4318/v1/traces"  # type: ignore[union-attr]
    assert export_target({**base, "OTEL_SDK_DISABLED": "true"}) is None
    assert export_target({**base, "OTEL_TRACES_EXPORTER": "none"}) is None
    pairs = (("Authorization", "Basic abc=="), ("x-a", "1"))
    assert parse_headers("Authorization=Basic%20abc%3D%3D, x-a = 1 ,") == pairs


def test_the_cli_sends_a_recorded_run_live_and_flushes_at_exit(tmp_path: Path) -> None:
    with FakeOpenAIServer([DATE_STEP, DATE_ANSWER]) as server, OtlpReceiver() as receiver:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("OTEL_")},
            "OPENAI_BASE_URL": server.base_url,
            "OPENAI_API_KEY": "sk-cli-test",
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.base_url,
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
        }
        db = f"sqlite:///{tmp_path / 'cli.db'}"
        argv = [sys.executable, "-m", "agent_core", "ask", SEED, "--db", db, "--include-content"]
        done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert receiver.wait_for(lambda spans: len(spans) == 4, timeout=5)  # the process flushed before exiting
    session_id = re.search(r"session: (\S+)", done.stderr).group(1)  # type: ignore[union-attr]
    root = next(s for s in receiver.spans() if s["parent"] is None)
    assert (root["attributes"]["session.id"], root["attributes"]["input.value"]) == (session_id, SEED)
    assert "2024-10-17" in root["attributes"]["output.value"]


def parallel_run() -> list[Event]:
    """Native tools: two calls in one step (finished together), then a third, then the answer."""
    script = ScriptedModel(
        [
            Reply(
                "Both at once.", tool_calls=(("calculator", {"expression": "6*7"}), ("calculator", {"expression": "1"}))
            ),
            Reply.call("calculator", text="One more.", expression="2"),
            Reply("42", usage=(200, 2)),
        ]
    )
    return list(Agent(script, [calculator], protocol="tools").run("What is 6*7?"))


def handed_over(events: list[Event], **options: Any) -> list[SpanData]:
    """Every span RunSpans hands over while folding ``events`` one by one."""
    spans = RunSpans(**options)
    return [span for event in events for span in spans.add(event)]


@pytest.mark.parametrize("content", [False, True])
def test_spans_handed_over_one_by_one_are_exactly_the_exported_ones(content: bool) -> None:
    interrupted_tool = [started("ri", "q"), step("ri", 1, 0.0), tool_start("ri", 1, "c1", "web_search", 0.25),
                        finished("ri", 0.5, "cancelled", 500.0)]  # fmt: skip
    for events in (parallel_run(), session(), resumed_run(), interrupted_tool, calculator_run() + parallel_run()):
        live = handed_over(events, session_id="s", include_content=content, prices=PRICES)
        exported = build_spans(events, session_id="s", include_content=content, prices=PRICES)
        assert sorted(live, key=lambda s: s.span_id) == sorted(exported, key=lambda s: s.span_id)
        assert len({s.span_id for s in live}) == len(live)  # each span handed over once


def test_a_resumed_run_sends_only_the_spans_after_the_interruption() -> None:
    events = resumed_run()
    cut = next(i for i, e in enumerate(events) if e.type == "run_resumed")
    live = handed_over(events[cut:], earlier=events[:cut], session_id="s", prices=PRICES)
    assert [s.name for s in live] == [f"chat {MODEL}", "invoke_agent sparrow"]
    exported = {s.span_id: s for s in build_spans(events, session_id="s", prices=PRICES)}
    assert all(exported[s.span_id] == s for s in live)


def test_the_starter_is_named_alike_live_and_in_an_export() -> None:
    events = calculator_run()
    run_id = events[0].run_id
    live = handed_over(events, session_id="s", prices=PRICES, started_by="alice@example.com")
    exported = build_spans(events, session_id="s", prices=PRICES, starters={run_id: "alice@example.com"})
    assert sorted(live, key=lambda s: s.span_id) == sorted(exported, key=lambda s: s.span_id)
    run = next(s for s in exported if s.parent_span_id is None)
    assert run.attributes["user.id"] == "alice@example.com"
    assert all("user.id" not in s.attributes for s in exported if s is not run)  # once, on the run span
    assert all("user.id" not in s.attributes for s in build_spans(events, session_id="s"))  # unnamed: no key


def warnings_while(caplog: pytest.LogCaptureFixture, env: dict[str, str]) -> list[str]:
    """The warnings of two runs exported with ``env`` (the sender is drained before looking)."""
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        for _ in range(2):
            run_live(Agent(ScriptedModel(["Final Answer: 1"]), []), env)
            sender_for(export_target(env)).flush(5)
    return [r.getMessage() for r in caplog.records if r.name == LOGGER]


def test_a_refusing_collector_is_one_warning_with_its_answer(
    collector: Collector, caplog: pytest.LogCaptureFixture
) -> None:
    collector.status = 401
    found = warnings_while(caplog, env_for(collector.base_url))
    assert len(found) == 1 and "refused the spans (401 Unauthorized)" in found[0]


def test_without_the_otel_extra_live_export_is_off_and_says_what_to_do(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    real_import = importlib.import_module

    def without_sdk(name: str, *args: Any) -> Any:
        if name == "agent_core.trace_export.otel_sdk":
            raise ModuleNotFoundError("No module named 'opentelemetry.sdk'", name="opentelemetry.sdk")
        return real_import(name, *args)

    monkeypatch.setattr(importlib, "import_module", without_sdk)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        for _ in range(2):
            events, _ = run_live(
                Agent(ScriptedModel(["Final Answer: 1"]), []), env_for(f"http://127.0.0.1:{closed_port()}")
            )
            assert events[-1].status == "completed"
    found = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert len(found) == 1 and "opentelemetry.sdk is missing" in found[0] and "sparrow-agent[otel]" in found[0]


def test_resuming_an_interrupted_session_sends_the_rest_of_its_run() -> None:
    store = SessionStore.open("sqlite://")
    agent = arithmetic_agent()
    session = store.sessions.create(config_from_agent(agent))
    stream = record_events(store, session.id, agent.run("What is 6*7?"))
    for event in stream:
        if isinstance(event, ToolFinished):
            break  # the process dies after the first step
    stream.close()
    with OtlpReceiver() as receiver:
        earlier = store.log.events(session.id)  # what `sessions resume` passes: the whole session so far
        resumed = resume_run(store, session.id, arithmetic_agent())
        events = list(live_export(resumed, session_id=session.id, earlier=earlier, environ=env_for(receiver)))
        close_all()
        assert receiver.wait_for(lambda spans: len(spans) == 2)
    assert events[-1].status == "completed"
    sent = sorted(receiver.spans(), key=lambda s: s["span"])
    whole = build_spans(store.log.events(session.id), session_id=session.id)
    assert [s["name"] for s in sent if s["parent"]] == ["chat fake-arith"]
    assert sent == expected([s for s in whole if s.span_id in {r["span"] for r in sent}])
    store.close()


def test_a_503_then_a_200_delivers_the_batch_after_the_retry_after_wait(
    collector: Collector, caplog: pytest.LogCaptureFixture
) -> None:
    collector.answers = [(503, {"Retry-After": "1"})]
    env = env_for(collector.base_url)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        run_live(Agent(ScriptedModel(["Final Answer: later"]), []), env)
        assert sender_for(export_target(env)).flush(8)
    assert len(collector.arrivals) == 2 and len(collector.requests) == 1  # the refused request, then the retry
    assert collector.arrivals[1] - collector.arrivals[0] >= 0.9  # Retry-After: 1 (not the 1 s ± 20 % backoff)
    assert len(collector.requests[0].resource_spans[0].scope_spans[0].spans) == 2
    assert [r.getMessage() for r in caplog.records if r.name == LOGGER] == []  # a retry that works is no news


def test_retry_after_is_honoured_by_the_resend_path(collector: Collector) -> None:
    collector.answers = [(429, {"Retry-After": "2"})]
    started = time.monotonic()
    assert send_otlp(session(), endpoint=f"{collector.base_url}/v1/traces", timeout=8) == 8
    assert len(collector.requests) == 1 and collector.arrivals[1] - collector.arrivals[0] >= 1.9
    assert time.monotonic() - started < 6


def test_the_cli_with_a_dead_collector_answers_with_one_warning_line() -> None:
    with FakeOpenAIServer([DATE_STEP, DATE_ANSWER]) as server:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("OTEL_")},
            "OPENAI_BASE_URL": server.base_url,
            "OPENAI_API_KEY": "sk-cli-test",
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{closed_port()}",
            "OTEL_BSP_SCHEDULE_DELAY": "1",
        }
        argv = [sys.executable, "-m", "agent_core", "ask", SEED, "--no-save"]
        done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert (done.returncode, "2024-10-17" in done.stdout) == (0, True), done.stderr
    assert done.stderr.count("live trace export") == 1
    assert "live trace export: cannot reach http://127.0.0.1:" in done.stderr


def self_signed(directory: Path) -> tuple[str, str]:
    """A certificate for 127.0.0.1 and its key, made with the openssl command (the test skips without it)."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    command = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
               "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]  # fmt: skip
    try:
        subprocess.run(command, check=True, capture_output=True, timeout=60)
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"cannot make a certificate with openssl: {exc}")
    return str(cert), str(key)


def test_an_https_collector_is_trusted_through_the_certificate_variable(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cert, key = self_signed(tmp_path)
    with OtlpReceiver(tls=(cert, key)) as receiver:
        untrusted = warnings_while(caplog, env_for(receiver, OTEL_SERVICE_NAME="untrusted"))
        trusted = env_for(receiver, OTEL_EXPORTER_OTLP_CERTIFICATE=cert)
        run_live(Agent(ScriptedModel(["Final Answer: secure"]), []), trusted)
        assert sender_for(export_target(trusted)).flush(5)
        assert receiver.wait_for(lambda spans: len(spans) == 2)
    assert len(untrusted) == 1 and "CERTIFICATE_VERIFY_FAILED" in untrusted[0]
    assert {r.resource["service.name"] for r in receiver.requests} == {"sparrow"}


def test_a_resent_session_goes_where_and_as_the_live_spans_go(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Traces page's Send and ``export-trace --format otel``: protocol, service name and headers as live."""
    with OtlpReceiver() as receiver:
        for name, value in env_for(receiver, OTEL_EXPORTER_OTLP_PROTOCOL="http/json", OTEL_SERVICE_NAME="birds",
                                   OTEL_EXPORTER_OTLP_HEADERS="x-team=birds").items():  # fmt: skip
            monkeypatch.setenv(name, value)
        assert send_otlp(session(), session_id="s") == 8
        assert receiver.wait_for(lambda spans: len(spans) == 8)
    request = receiver.requests[0]
    assert (request.content_type, request.resource["service.name"], request.headers["x-team"]) == (
        "application/json",
        "birds",
        "birds",
    )
    assert sorted(receiver.spans(), key=lambda s: s["span"]) == expected(build_spans(session(), session_id="s"))
