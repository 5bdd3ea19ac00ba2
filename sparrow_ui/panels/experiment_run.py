"""Starting, watching and stopping an experiment from the Experiments page, and importing a dataset.

A started experiment runs in a background thread of the server process (``start_in_background``), kept in a
process-wide registry so a refresh or another tab finds it; its progress is redrawn every second by a fragment.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from agent_core.engine.protocols import PROTOCOLS
from agent_core.experiments import (
    DatasetFileError,
    RunConfig,
    create_experiment,
    import_dataset,
    parse_dataset,
)
from agent_core.experiments.configs import ModelFactory
from agent_core.experiments.datasets import DatasetInfo, format_of
from agent_core.experiments.records import ExperimentInfo
from agent_core.experiments.runner import BackgroundRun, start_in_background
from agent_core.guards.untrusted import plain
from agent_core.models.chat import ChatModel
from agent_core.store import SessionStore
from sparrow_ui.shell.state import ModelConfig
from sparrow_ui.translations.strings_experiments import te

EXPERIMENT_PARAM = "experiment"


@st.cache_resource(show_spinner=False)
def running_jobs() -> dict[str, BackgroundRun]:
    """Experiments started from this server process, by id."""
    return {}


def is_running(experiment_id: str) -> bool:
    """True while an experiment started from this server process still runs."""
    job = running_jobs().get(experiment_id)
    return job is not None and job.running


def sidebar_models(config: ModelConfig) -> ModelFactory:
    """A model factory with the sidebar's endpoint and key (the key is never recorded).

    Each client comes from ``ModelConfig.chat_model``, so the operator's keys go only to the operator's endpoints
    and a configuration's own base URL passes the same address rules as one typed in the sidebar."""

    def make(run: RunConfig) -> ChatModel:
        return config.with_model(run.model, run.base_url).chat_model()

    return make


def run_form(store: SessionStore, config: ModelConfig, datasets: list[DatasetInfo], done: list[ExperimentInfo]) -> None:
    """Dataset × models × protocols, limits, repeats, concurrency, baseline, judge; Start runs it in the background."""
    if not datasets:
        st.info(te("exp.no_datasets"))
        return
    with st.form("run_experiment", border=False):
        dataset = st.selectbox(te("exp.dataset"), datasets, format_func=lambda d: d.label, key="exp_dataset")
        models = st.text_input(te("exp.models"), value=config.run.model, help=te("exp.models_help"), key="exp_models")
        protocols = st.multiselect(te("exp.protocols"), sorted(PROTOCOLS), default=[config.run.protocol])
        left, middle, right = st.columns(3)
        max_steps = left.number_input(te("exp.max_steps"), 1, 50, value=config.run.agent.max_steps)
        repeats = middle.number_input(te("exp.repeats"), 1, 20, value=1)
        concurrency = right.number_input(te("exp.concurrency"), 1, 64, value=4)
        baseline = st.selectbox(te("exp.baseline"), [None, *done], format_func=_experiment_label)
        judge = st.text_input(te("exp.judge_model"), help=te("exp.judge_model_help"), key="exp_judge").strip()
        if st.form_submit_button(te("exp.start"), type="primary", icon=":material/play_arrow:", key="exp_start"):
            names = [m.strip() for m in models.split(",") if m.strip()]
            info = create_experiment(
                store,
                dataset.id,
                _configs(config, names, protocols or [config.run.protocol], int(max_steps)),
                repeats=int(repeats),
                concurrency=int(concurrency),
                baseline=baseline.id if baseline else None,
                judge=RunConfig(name="judge", model=judge, base_url=config.run.base_url) if judge else None,
            )
            start(store, info.id, sidebar_models(config))


def _configs(config: ModelConfig, models: list[str], protocols: list[str], max_steps: int) -> list[RunConfig]:
    """One configuration per model × protocol, on the sidebar's endpoint and temperature."""
    return [
        RunConfig(
            model=m,
            base_url=config.run.base_url,
            protocol=p,
            max_steps=max_steps,
            temperature=config.run.agent.temperature,
        )
        for m in models
        for p in protocols
    ]


def start(store: SessionStore, experiment_id: str, factory: ModelFactory) -> None:
    """Run (or resume) an experiment in the background and show it."""
    running_jobs()[experiment_id] = start_in_background(store, experiment_id, factory)
    st.query_params[EXPERIMENT_PARAM] = experiment_id
    st.rerun()


def _experiment_label(info: ExperimentInfo | None) -> str:
    return te("exp.no_baseline") if info is None else f"{info.name} ({info.id})"


def progress_panel(experiment_id: str, on_finish: Callable[[], None]) -> None:
    """Live progress of an experiment started here (done/total, pass rate, cost, time left) with a Stop button.

    Redrawn every second while it runs; when it ends the whole page reruns once to show the results.
    """
    job = running_jobs().get(experiment_id)
    if job is None:
        return
    finished_key = f"exp_finished_{experiment_id}"

    @st.fragment(run_every=1.0 if job.running else None)
    def panel() -> None:
        progress = job.progress
        if job.error:
            st.error(job.error)
        if progress is not None:
            key = "exp.running" if job.running else "exp.finished"
            st.progress(progress.done / max(progress.total, 1), text=te(key, line=progress.line()))
        if job.running:
            st.button(te("exp.stop"), icon=":material/stop:", key=f"stop_{experiment_id}", on_click=job.stop)
        elif not st.session_state.get(finished_key):
            st.session_state[finished_key] = True
            on_finish()

    panel()


def import_form(store: SessionStore) -> None:
    """Upload a JSONL, CSV or YAML dataset; every problem is listed and nothing is imported if there is one."""
    uploaded = st.file_uploader(te("exp.import_file"), type=["jsonl", "csv", "yaml", "yml"])
    name = st.text_input(te("exp.name"), key="import_name")
    if uploaded is not None and st.button(te("exp.import_button"), icon=":material/upload:"):
        try:
            parsed = parse_dataset(uploaded.getvalue(), format_of(uploaded.name), source=uploaded.name)
            info = import_dataset(store, parsed, name.strip() or None)
        except DatasetFileError as exc:
            st.error(te("exp.need_problem") + "\n\n" + "\n".join(f"- {plain(p)}" for p in exc.problems[:20]))
            return
        st.success(te("exp.imported", label=info.label))
