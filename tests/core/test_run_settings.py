"""RunSettings and AgentSettings: one encoding for every record, old records and old settings files still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from agent_core.engine.run_context import AgentSettings, settings_problem
from agent_core.events import plain
from agent_core.examples import EXAMPLE_KEY
from agent_core.experiments.configs import RunConfig
from agent_core.runtime.run_settings import RunSettings
from agent_core.runtime.session_runs import CONSENT_UNSET

SESSIONS = sorted((Path(__file__).resolve().parents[2] / "agent_core" / "examples" / "sessions").glob("*.json"))

AGENT = st.builds(
    AgentSettings,
    max_steps=st.integers(1, 30),
    temperature=st.one_of(st.none(), st.floats(0, 1.5, allow_nan=False)),
    max_tools=st.one_of(st.none(), st.integers(1, 50)),
    max_tokens=st.one_of(st.none(), st.integers(16, 200_000)),
    repeat_policy=st.sampled_from(["redirect", "allow", "stop"]),
    tool_approval=st.dictionaries(st.sampled_from(["remember", "web_search", "calculator"]), st.booleans()),
)
RUN = st.builds(
    RunSettings,
    provider=st.sampled_from(["openai", "ollama", "operator0"]),
    base_url=st.one_of(st.none(), st.just("http://localhost:11434/v1")),
    model=st.sampled_from(["gpt-4o-mini", "qwen2.5:7b", "模型"]),
    protocol=st.sampled_from(["react", "tools", "json"]),
    tools=st.one_of(st.none(), st.lists(st.sampled_from(["calculator", "remember"]), unique=True).map(tuple)),
    agent=AGENT,
)


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name)
def test_the_one_encoding_is_the_recorded_one(path: Path) -> None:
    """Decoding what the example sessions recorded and encoding it again gives their records back, key for key."""
    data = json.loads(path.read_text(encoding="utf-8"))
    records = [e["settings"] for e in data["events"] if e["type"] == "run_started"]
    config = {k: v for k, v in data["session"]["config"]["settings"].items() if k != EXAMPLE_KEY}
    assert records
    for record in [*records, config]:
        assert AgentSettings.from_record(record).to_record() == {**record, **CONSENT_UNSET}


@given(RUN)
def test_settings_round_trip_through_the_settings_file(chosen: RunSettings) -> None:
    assert RunSettings.from_saved(json.loads(chosen.model_dump_json(indent=1))) == chosen


@given(AGENT)
def test_settings_round_trip_through_a_record(chosen: AgentSettings) -> None:
    consent = {"require_approval": chosen.require_approval, "tool_approval": chosen.tool_approval}
    assert plain(chosen) == chosen.to_record()  # the loop writes RunStarted's settings with plain()
    decoded = AgentSettings.from_record(json.loads(json.dumps(chosen.to_record())))
    assert AgentSettings.from_record(chosen.to_record()) == decoded
    assert {**decoded.to_record(), **consent} == chosen.to_record()  # all but the consent, which stays with its run


def test_no_limit_has_one_meaning() -> None:
    with pytest.raises(ValueError) as refused:
        AgentSettings(max_steps=0, max_tools=0)
    said = "max_steps must be at least 1; max_tools must be at least 1 (or None for every tool)"
    assert settings_problem(refused.value) == said  # what the command line prints
    assert AgentSettings.from_record({"max_tools": 0}).max_tools is None  # records of before said 0
    earlier = {"cfg_max_tools": 0, "cfg_max_steps": 4, "cfg_base_url": "", "cfg_tools": None, "lang_choice": "zh"}
    loaded = RunSettings.from_saved(earlier)
    assert (loaded.agent.max_tools, loaded.agent.max_steps, loaded.base_url, loaded.tools) == (None, 4, None, None)
    assert RunSettings(base_url="  ").base_url is None and RunSettings().enables("anything")


def test_a_changed_field_is_validated_again() -> None:
    chosen = RunSettings().changed(max_steps=3, model="m", tool_approval={"remember": False})
    assert (chosen.agent.max_steps, chosen.model, chosen.agent.tool_approval) == (3, "m", {"remember": False})
    with pytest.raises(ValueError, match="max_steps"):
        chosen.changed(max_steps=0)
    with pytest.raises(ValueError, match="protocol"):
        chosen.changed(protocol="yaml")


def test_the_app_and_an_experiment_refuse_an_unknown_protocol_in_the_same_words() -> None:
    said = "the protocol 'yaml' is not one of react, tools, json"
    refused = []
    for make in (lambda: RunSettings(protocol="yaml"), lambda: RunConfig(model="m", protocol="yaml")):
        with pytest.raises(ValidationError) as caught:
            make()
        (error,) = caught.value.errors()
        refused.append((error["loc"], error["msg"]))
    assert refused == [(("protocol",), f"Value error, {said}")] * 2
    assert RunConfig(model="m", protocol="json").protocol == RunSettings(protocol="json").protocol == "json"
