"""One session, runs at three endpoints: the Chat sidebar, the Traces page and the export show the same costs.

Each run is recorded for real (``run_in_session``) by a ScriptedModel standing in for a model served at a
hosted provider's base URL (no test may call a remote host); the engine records that URL in RunStarted.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from agent_core import Agent
from agent_core.formatting import format_cost
from agent_core.runtime.sessions import run_in_session
from agent_core.store import SessionStore
from agent_core.tools import builtin_tools
from agent_core.trace_export import export_trace
from agent_core.views.metrics import session_metrics
from sparrow_ui.translations.strings_traces import STRINGS as TRACES_STRINGS
from tests.observability.test_endpoint_pricing import DEEPSEEK, LOCAL, OPENAI, ZAI, ZHIPU, hosted

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 30


def record(store: SessionStore, *runs: tuple[str, str]) -> str:
    """A session with one finished run per (model, endpoint)."""
    session = store.sessions.create()
    for model, endpoint in runs:
        agent = Agent(hosted(model, endpoint), tools=builtin_tools())
        list(run_in_session(store, session.id, agent, f"What is 2 + 2 ({model})?"))
    return session.id


def sidebar_total(session_id: str) -> str:
    """The cost in the Chat page's "This session" caption."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["session"] = session_id
    at.run()
    assert not at.exception, at.exception
    (total,) = [c.value for c in at.sidebar.caption if "This session:" in c.value]
    return total.split(" · ")[2].replace("\\$", "$")  # the caption escapes markdown's ``$``


def traces_session(session_id: str) -> tuple[str, list[float]]:
    """The Traces page's session overview: its Cost metric and the cost column of its runs table."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at.switch_page("pages/traces.py")
    at.query_params["session"] = session_id
    at.run()
    at.session_state["traces_tab"] = TRACES_STRINGS["traces.tab.session"]["en"]
    at.run()
    assert not at.exception, at.exception
    (cost,) = [m.value for m in at.metric if m.label == "Cost"]
    return cost, at.dataframe[0].value["cost"].tolist()


@pytest.mark.usefixtures("fake_llm")
def test_the_sidebar_total_is_the_sum_of_the_runs_on_the_traces_page_and_in_the_export(store: SessionStore) -> None:
    session_id = record(store, ("gpt-4o-mini", OPENAI), ("deepseek-chat", DEEPSEEK), ("glm-4.5-air", ZHIPU))
    metrics = session_metrics(store.log.events(session_id))
    runs = [r.cost for r in metrics.runs]
    assert None not in runs and metrics.cost == pytest.approx(sum(c for c in runs if c is not None))
    shown = format_cost(metrics.cost)
    cost, per_run = traces_session(session_id)
    assert per_run == pytest.approx(runs)
    assert sidebar_total(session_id) == cost == shown
    report = export_trace(store.log.events(session_id), "md")
    assert report.split("\n")[2].split(" · ")[3] == shown  # the report's session summary line
    overview = [row.split(" | ")[5] for row in re.findall(r"^\| \d+ \| .+$", report, re.MULTILINE)]
    assert overview == [format_cost(c) for c in runs]


@pytest.mark.usefixtures("fake_llm")
def test_a_model_with_a_hosted_name_at_a_local_server_shows_no_price_anywhere(store: SessionStore) -> None:
    session_id = record(store, ("gpt-4o-mini", LOCAL))
    cost, per_run = traces_session(session_id)
    assert sidebar_total(session_id) == cost == "—" and per_run == [-1.0]  # -1: unknown, sorted first


@pytest.mark.usefixtures("fake_llm")
def test_one_model_name_at_two_providers_shows_two_prices(store: SessionStore) -> None:
    zai, zhipu = record(store, ("glm-4.5-air", ZAI)), record(store, ("glm-4.5-air", ZHIPU))
    (zai_cost, _), (zhipu_cost, _) = traces_session(zai), traces_session(zhipu)
    assert zai_cost != zhipu_cost and "—" not in (zai_cost, zhipu_cost)
    assert (sidebar_total(zai), sidebar_total(zhipu)) == (zai_cost, zhipu_cost)


@pytest.mark.usefixtures("fake_llm")
def test_a_malformed_price_override_is_said_once_and_the_catalogue_prices_the_runs(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    session_id = record(store, ("gpt-4o-mini", OPENAI))
    expected = format_cost(session_metrics(store.log.events(session_id)).cost)
    monkeypatch.setenv("SPARROW_PRICES", '{"gpt-4o-mini": [1]}')
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["session"] = session_id
    at.run()
    assert not at.exception, at.exception
    assert [x.value for x in at.toast] == [
        "SPARROW_PRICES: price of 'gpt-4o-mini': expected [input, output], got 1 values. "
        "Costs use the catalogue's list prices until it is fixed."
    ]
    assert sidebar_total(session_id) == expected
