"""A run is priced at the endpoint it recorded: the same model name costs what that endpoint's provider charges.

Runs are made for real (the engine records the model's base URL in RunStarted); a ScriptedModel given the base
URL of a hosted provider stands in for it, since no test may call a remote host.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_core import Agent
from agent_core.cli.main import main
from agent_core.events import Event, ModelFinished, ModelSampled, RunStarted, event_from_dict
from agent_core.formatting import format_cost
from agent_core.models import OpenAIChatModel
from agent_core.models.endpoints import recorded_endpoint
from agent_core.models.pricing import DEFAULT_TABLE, provider_id
from agent_core.runtime.resample import resample_step
from agent_core.runtime.session_runs import run_in_session
from agent_core.store import SessionStore
from agent_core.testing import FakeOpenAIServer, Reply, ScriptedModel
from agent_core.tools import builtin_tools
from agent_core.trace_export import build_spans, export_trace
from agent_core.views.metrics import run_metrics, session_metrics
from tests.core.helpers import answer, react

OPENAI = "https://api.openai.com/v1"
DEEPSEEK = "https://api.deepseek.com/v1"
LOCAL = "http://127.0.0.1:11434/v1"
ZAI = "https://api.z.ai/api/paas/v4"
ZHIPU = "https://open.bigmodel.cn/api/paas/v4"
USAGE = (1_000_000, 200_000)


def hosted(model: str, endpoint: str | None) -> ScriptedModel:
    """A scripted two-step run of ``model`` standing in for one served at ``endpoint`` (its calls carry usage)."""
    scripted = ScriptedModel(
        [Reply(react("Add.", "calculator", expression="2 + 2"), usage=USAGE), Reply(answer("Done.", "4"), usage=USAGE)],
        name=model,
    )
    scripted.endpoint = endpoint  # type: ignore[attr-defined]  # what an OpenAIChatModel exposes
    return scripted


def run(model: str, endpoint: str | None) -> list[Event]:
    """The events of one run of ``model`` at ``endpoint``."""
    return list(Agent(hosted(model, endpoint), tools=builtin_tools()).run("What is 2 + 2?"))


def expected_cost(events: list[Event], endpoint: str) -> float:
    """What the catalogue charges for the run's model calls at ``endpoint``, call by call."""
    table = DEFAULT_TABLE.for_endpoint(endpoint)
    costs = [table.cost(e.usage, e.model, e.ts) for e in events if isinstance(e, ModelFinished)]
    assert None not in costs
    return sum(c for c in costs if c is not None)


def test_the_run_records_where_its_model_was_called_without_credentials() -> None:
    assert recorded_endpoint(OpenAIChatModel("gpt-4o-mini", api_key="sk-x", use_environment=False)) == OPENAI
    secret = OpenAIChatModel("m", api_key="sk-x", base_url="https://me:pw@API.DeepSeek.com/v1/?key=s#x")
    assert recorded_endpoint(secret) == DEEPSEEK
    assert recorded_endpoint(ScriptedModel([])) is None
    assert recorded_endpoint(hosted("m", "http://[::1]:8000/v1")) == "http://[::1]:8000/v1"
    assert (provider_id(OPENAI), provider_id(DEEPSEEK), provider_id(LOCAL)) == ("openai", "deepseek", None)
    assert provider_id("https://llm-gateway.example.com/v1") is None


def test_a_run_against_a_local_server_records_it_and_has_no_list_price() -> None:
    with FakeOpenAIServer([answer("Hi.", "hello")]) as server:
        model = OpenAIChatModel("gpt-4o-mini", base_url=server.base_url, api_key="sk-test")
        events = list(Agent(model).run("hi"))
    started = next(e for e in events if isinstance(e, RunStarted))
    assert started.endpoint == server.base_url.rstrip("/") and started.endpoint.startswith("http://127.0.0.1:")
    assert event_from_dict(started.to_dict()) == started
    assert run_metrics(events).cost is None  # not OpenAI's price for a model that happens to share its name


def test_the_same_model_name_costs_what_each_endpoint_charges() -> None:
    at_openai, at_deepseek, at_home, unrecorded = (
        run("gpt-4o-mini", OPENAI),
        run("gpt-4o-mini", DEEPSEEK),
        run("gpt-4o-mini", LOCAL),
        run("gpt-4o-mini", None),
    )
    assert run_metrics(at_openai).cost == pytest.approx(expected_cost(at_openai, OPENAI))
    assert run_metrics(at_openai).cost > 0
    assert run_metrics(at_deepseek).cost is None  # DeepSeek does not list it
    assert run_metrics(at_home).cost is None
    assert run_metrics(unrecorded).cost == pytest.approx(run_metrics(at_openai).cost)  # by model name: OpenAI's
    at_zai, at_zhipu = run("glm-4.5-air", ZAI), run("glm-4.5-air", ZHIPU)
    assert run_metrics(at_zai).cost == pytest.approx(expected_cost(at_zai, ZAI))
    assert run_metrics(at_zhipu).cost == pytest.approx(expected_cost(at_zhipu, ZHIPU))
    assert run_metrics(at_zhipu).cost < run_metrics(at_zai).cost  # BigModel's list price is the lower one
    deepseek = run("deepseek-chat", DEEPSEEK)
    assert run_metrics(deepseek).cost == pytest.approx(expected_cost(deepseek, DEEPSEEK))
    assert run_metrics(run("deepseek-chat", OPENAI)).cost is None


def test_every_export_of_a_run_shows_the_cost_the_metrics_show() -> None:
    events = [*run("gpt-4o-mini", OPENAI), *run("deepseek-chat", DEEPSEEK)]
    session = session_metrics(events)
    assert session.cost == pytest.approx(sum(r.cost for r in session.runs if r.cost is not None))
    spans = build_spans(events, session_id="s")
    run_costs = [s.attributes["sparrow.cost_usd"] for s in spans if s.parent_span_id is None]
    call_costs = [s.attributes.get("sparrow.cost_usd") for s in spans if s.name.startswith("chat ")]
    assert run_costs == pytest.approx([r.cost for r in session.runs])
    assert sum(call_costs) == pytest.approx(session.cost)
    markdown = export_trace(events, "md")
    assert all(format_cost(r.cost) in markdown for r in session.runs)
    assert format_cost(session.cost) in markdown


def _otel_run_costs(text: str) -> list[float | None]:
    """``sparrow.cost_usd`` of each run span of an OTLP/JSON document (None when the span has none)."""
    spans = [s for r in json.loads(text)["resourceSpans"] for sc in r["scopeSpans"] for s in sc["spans"]]
    costs: list[float | None] = []
    for span in spans:
        if span.get("parentSpanId"):
            continue
        value: dict[str, Any] = next((a["value"] for a in span["attributes"] if a["key"] == "sparrow.cost_usd"), {})
        costs.append(value.get("doubleValue"))
    return costs


def test_export_trace_and_sessions_show_price_each_run_at_its_own_endpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'costs.db'}"
    store = SessionStore.open(db)
    session = store.sessions.create()
    for model, endpoint in (("gpt-4o-mini", OPENAI), ("deepseek-chat", DEEPSEEK), ("gpt-4o-mini", LOCAL)):
        agent = Agent(hosted(model, endpoint), tools=builtin_tools())
        list(run_in_session(store, session.id, agent, f"2 + 2 at {endpoint}?"))
    shown = session_metrics(store.log.events(session.id))
    store.close()
    assert [r.cost is None for r in shown.runs] == [False, False, True] and shown.cost is None
    capsys.readouterr()
    assert main(["sessions", "export-trace", session.id, "--format", "otel", "--db", db]) == 0
    assert _otel_run_costs(capsys.readouterr().out) == pytest.approx([shown.runs[0].cost, shown.runs[1].cost, None])
    assert main(["sessions", "show", session.id, "--db", db]) == 0
    finished = [line for line in capsys.readouterr().out.splitlines() if "✓ completed" in line]
    assert [line.split(" · ")[4] for line in finished] == [format_cost(r.cost) for r in shown.runs]
    assert finished[2].split(" · ")[4] == "—"


def test_a_what_if_sample_records_and_is_priced_at_the_endpoint_it_was_asked_at(tmp_path: Path) -> None:
    store = SessionStore.open(f"sqlite:///{tmp_path / 'samples.db'}")
    session = store.sessions.create()
    list(run_in_session(store, session.id, Agent(hosted("gpt-4o-mini", OPENAI), tools=builtin_tools()), "2 + 2?"))
    run_id = next(e.run_id for e in store.log.events(session.id) if isinstance(e, RunStarted))
    (sample,) = resample_step(store, session.id, run_id, 1, hosted("gpt-4o-mini", LOCAL), 1)
    stored = [e for e in store.log.events(session.id) if isinstance(e, ModelSampled)]
    store.close()
    assert stored == [sample] and sample.endpoint == LOCAL
    assert DEFAULT_TABLE.for_run(sample).cost(sample.usage, sample.model, sample.ts) is None  # not the run's OpenAI
    assert DEFAULT_TABLE.for_endpoint(OPENAI).cost(sample.usage, sample.model, sample.ts) is not None
