"""The Sessions page hides the sessions an experiment ran its items in, unless the user asks for them."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from agent_core.experiments import DatasetItem, ExperimentRunner, RunConfig, create_dataset, create_experiment
from agent_core.experiments.example import rule_model
from agent_core.experiments.results import unit_results
from agent_core.store import SessionStore

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def listed(at: AppTest) -> set[str]:
    """The titles of the session cards drawn."""
    found = set()
    for block in at.main.children.values():
        values = [m.value for m in block.markdown] if block.type == "flex_container" else []
        if values:
            found.add(values[0].strip("*"))
    return found


def test_experiment_runs_are_hidden_until_asked_for(store: SessionStore) -> None:
    store.sessions.create(title="mine")
    create_dataset(store, "one", [DatasetItem(id="a", question="What is 1 + 1?", expect={"number": 2})])
    info = create_experiment(store, "one", [RunConfig(name="react", model="rules")])
    ExperimentRunner(store, info.id, model_factory=rule_model).run()
    (unit,) = unit_results(store, info.id)
    item_title = store.sessions.get(str(unit.session_id)).title
    at = AppTest.from_file(APP, default_timeout=30)
    at.switch_page("pages/sessions.py").run()
    assert not at.exception, at.exception
    assert listed(at) == {"mine"}
    toggle = at.toggle(key="sessions_experiment_runs")
    assert toggle.label == "Show the 1 sessions experiments ran their items in" and not toggle.value
    toggle.set_value(True).run()
    assert {t.replace("\\", "") for t in listed(at)} == {"mine", item_title}  # the card escapes its "#"
