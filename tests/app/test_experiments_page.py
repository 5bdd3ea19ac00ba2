"""The Experiments page (AppTest): the shipped example fills it on a first visit; a run from the page; the matrix."""

from __future__ import annotations

import json
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

from agent_core.experiments import create_dataset, get_dataset
from agent_core.experiments.datasets import DatasetItem
from agent_core.experiments.example import EXAMPLE_DATASET
from agent_core.experiments.records import list_experiments
from agent_core.experiments.results import unit_results
from agent_core.store import SessionStore
from agent_core.testing import FakeOpenAIServer

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def open_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("pages/experiments.py")
    at.run()
    assert not at.exception, at.exception
    return at


def test_a_first_visit_shows_the_finished_example_with_its_regressions() -> None:
    at = open_page()
    store = SessionStore.open()
    names = sorted(e.name for e in list_experiments(store))
    assert names == ["Example · 10 steps", "Example · 2 steps"]
    assert get_dataset(store, EXAMPLE_DATASET).item_count == 20
    assert any("Example experiment" in i.value for i in at.info)
    listed = at.dataframe[0].value.to_dict("records")
    assert [(r["Name"], r["Status"]) for r in listed] == [
        ("Example · 2 steps", "finished"),
        ("Example · 10 steps", "finished"),
    ]
    summary = at.dataframe[1].value.to_dict("records")
    assert [r["Configuration"] for r in summary] == ["ReAct · 2 steps", "tools · 2 steps"]
    assert summary[0]["Pass rate"] == "9/20 (45%)" and "max_steps × 2" in summary[0]["Failures"]
    changes = at.dataframe[2].value.to_dict("records")
    assert {r["Item"] for r in changes} == {"multiply", "two-tools"}
    assert all(r["Compare"].startswith("/compare?left=ses_") and ":run_" in r["Compare"] for r in changes)
    lines = next(m.value for m in at.markdown if "regression ·" in m.value).splitlines()
    assert len(lines) == 4 and lines[0].startswith("- 🔻 regression · **multiply** · ReAct · 2 steps — the run ended")
    assert "[Compare](/compare?left=ses_" in lines[0] and "[Trace](/traces?session=ses_" in lines[0]
    matrix = at.dataframe[3].value
    assert len(matrix) == 20 and list(matrix.columns)[2:] == ["ReAct · 2 steps", "tools · 2 steps"]
    cell = matrix.iloc[0]["ReAct · 2 steps"]
    assert cell.startswith("/traces?session=ses_") and "#❌" in cell  # multiply needs 3 steps
    downloads = [b.proto.label for b in at.get("download_button")]
    assert downloads == ["JSON", "CSV", "JUnit XML", "HTML"]


def test_an_experiment_started_on_the_page_runs_and_shows_its_results(fake_llm: FakeOpenAIServer) -> None:
    store = SessionStore.open()
    items = [DatasetItem(question="What is 17 * 23?", expect={"contains": "391"})]
    create_dataset(store, "mine", [*items, DatasetItem(question="What is 2 + 2?", expect={"number": 4})])
    at = open_page()
    assert at.selectbox(key="exp_dataset").value.name == "mine"  # the newest dataset comes first
    at.text_input(key="exp_models").input("gpt-4o-mini, fake-model")
    at.button(key="exp_start").click()
    at.run()
    assert not at.exception, at.exception
    started = next(e for e in list_experiments(store) if e.name == "mine v1 #1")
    deadline = time.monotonic() + 30
    while next(e for e in list_experiments(store) if e.id == started.id).status != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    at.run()
    summary = at.dataframe[1].value.to_dict("records")
    assert [(r["Configuration"], r["Pass rate"]) for r in summary] == [
        ("gpt-4o-mini · react", "2/2 (100%)"),
        ("fake-model · react", "2/2 (100%)"),
    ]


def test_a_judge_model_typed_on_the_form_grades_the_judge_checks_and_is_recorded(fake_llm: FakeOpenAIServer) -> None:
    store = SessionStore.open()
    item = DatasetItem(question="What is 17 * 23?", expect={"judge": "PASS when the answer is 391."})
    create_dataset(store, "judged", [item])
    at = open_page()
    at.text_input(key="exp_models").input("gpt-4o-mini")
    at.text_input(key="exp_judge").input("  fake-model ")
    at.button(key="exp_start").click()
    at.run()
    assert not at.exception, at.exception
    started = next(e for e in list_experiments(store) if e.name == "judged v1 #1")
    assert started.judge is not None
    assert (started.judge.model, started.judge.base_url) == ("fake-model", fake_llm.base_url)  # the sidebar's endpoint
    deadline = time.monotonic() + 30
    while next(e for e in list_experiments(store) if e.id == started.id).status != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    at.run()
    assert any("`fake-model`" in c.value for c in at.caption), [c.value for c in at.caption]
    asked = [r["model"] for r in fake_llm.requests if "PASS when the answer is 391." in json.dumps(r)]
    assert asked and set(asked) == {"fake-model"}  # the judge's call went to the judge model, the item's did not
    [unit] = unit_results(store, started.id)
    assert unit.scores[0]["name"] == "judge" and unit.scores[0]["judge_run"]  # the judge's call is a recorded run


def test_an_empty_judge_field_records_no_judge(fake_llm: FakeOpenAIServer) -> None:
    store = SessionStore.open()
    create_dataset(store, "plain", [DatasetItem(question="What is 2 + 2?", expect={"number": 4})])
    at = open_page()
    at.text_input(key="exp_judge").input("   ")
    at.button(key="exp_start").click()
    at.run()
    assert not at.exception, at.exception
    assert next(e for e in list_experiments(store) if e.name == "plain v1 #1").judge is None
