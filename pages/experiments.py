"""Experiments: run a dataset across configurations; results per configuration, against a baseline, per item."""

from __future__ import annotations

import streamlit as st

from agent_core.experiments.datasets import list_datasets
from agent_core.experiments.example import ensure_example, is_example
from agent_core.experiments.records import ExperimentNotFound, get_experiment, list_experiments
from agent_core.experiments.report import experiment_html, to_csv, to_json, to_junit
from agent_core.experiments.results import changes, config_summaries, unit_results
from agent_core.formatting import format_timestamp
from agent_core.trace_export.html import ReportLang
from sparrow_ui.access.auth import read_only
from sparrow_ui.panels import experiment_charts, experiment_run
from sparrow_ui.panels import experiment_views as experiment_tables
from sparrow_ui.shell.sidebar import frame
from sparrow_ui.shell.state import get_store
from sparrow_ui.trace.trace_charts import draw
from sparrow_ui.translations.i18n import lang
from sparrow_ui.translations.strings_experiments import te

CHANGES_SHOWN = 30
"""Changes listed with their links; all of them are in the table below the list."""

config = frame()
store = get_store()
st.header(te("nav.experiments"))
st.caption(te("exp.intro"))
if read_only():
    st.stop()
if not list_experiments(store) and not list_datasets(store):  # a first visit: the shipped example
    with st.spinner():
        ensure_example(store)
experiments = list_experiments(store)
with st.expander(te("exp.run_title"), icon=":material/science:"):
    experiment_run.run_form(store, config, list_datasets(store), experiments)
with st.expander(te("exp.import_title"), icon=":material/upload_file:"):
    experiment_run.import_form(store)
if not experiments:
    st.info(te("exp.none"))
    st.stop()

ids = [e.id for e in experiments]
wanted = st.query_params.get(experiment_run.EXPERIMENT_PARAM)
chosen_id = st.selectbox(
    te("exp.pick"),
    ids,
    index=ids.index(wanted) if wanted in ids else 0,
    format_func=lambda i: next(
        f"{e.name} · {e.status} · {format_timestamp(e.created_at)}" for e in experiments if e.id == i
    ),
)
st.query_params[experiment_run.EXPERIMENT_PARAM] = chosen_id
with st.expander(te("exp.all_experiments", count=len(experiments))):
    times = [format_timestamp(e.created_at) for e in experiments]
    st.dataframe(experiment_tables.experiments_frame(experiments, times), hide_index=True)
info = get_experiment(store, chosen_id)
experiment_run.progress_panel(info.id, st.rerun)
if is_example(info):
    st.info(te("exp.example_banner"), icon=":material/auto_stories:")
elif (
    info.status in ("pending", "cancelled")
    and not experiment_run.is_running(info.id)
    and st.button(te("exp.resume"), icon=":material/play_arrow:")
):
    experiment_run.start(store, info.id, experiment_run.sidebar_models(config))

if info.judge is not None:
    st.caption(te("exp.judge", model=info.judge.model, url=info.judge.base_url or "—"))
units = unit_results(store, info.id)
summaries = config_summaries(store, info, units)
st.subheader(te("exp.summary"))
st.dataframe(experiment_tables.summary_frame(summaries), hide_index=True)
rate_column, cost_column = st.columns(2, gap="large")
with rate_column:
    draw(experiment_charts.pass_rate_chart(summaries))
with cost_column:
    draw(experiment_charts.cost_chart(summaries))

st.subheader(te("exp.changes"))
others = [e for e in experiments if e.id != info.id and e.dataset_id == info.dataset_id] or [
    e for e in experiments if e.id != info.id
]
baseline_ids = [None, *[e.id for e in others]]
baseline_id = st.selectbox(
    te("exp.baseline"),
    baseline_ids,
    index=baseline_ids.index(info.baseline_id) if info.baseline_id in baseline_ids else 0,
    format_func=lambda i: (
        te("exp.no_baseline") if i is None else next(f"{e.name} ({e.id})" for e in others if e.id == i)
    ),
)
found = []
if baseline_id is not None:
    try:
        baseline = get_experiment(store, baseline_id)
        found = changes(baseline, unit_results(store, baseline.id), info, units)
    except ExperimentNotFound as exc:
        st.warning(str(exc))
    if found:
        st.markdown("\n".join(f"- {experiment_tables.change_line(c)}" for c in found[:CHANGES_SHOWN]))
        with st.expander(te("exp.all_changes", count=len(found))):
            link = st.column_config.LinkColumn(te("col.compare"), display_text=te("col.compare"))
            st.dataframe(
                experiment_tables.changes_frame(found), hide_index=True, column_config={te("col.compare"): link}
            )
    else:
        st.caption(te("exp.no_changes"))

st.subheader(te("exp.matrix"))
st.caption(te("exp.matrix_help"))
cells = {c.label: st.column_config.LinkColumn(c.label, display_text=experiment_tables.CELL_TEXT) for c in info.configs}
st.dataframe(experiment_tables.matrix_frame(info, units), hide_index=True, column_config=cells)

st.subheader(te("exp.exports"))
json_column, csv_column, junit_column, html_column = st.columns(4)
# Each file is made when its button is clicked, not on every rerun (the HTML report of 3,000 units takes a second).
json_column.download_button(
    "JSON",
    lambda: to_json(info, summaries, units, found),
    f"{info.id}.json",
    "application/json",
    icon=":material/data_object:",
)
csv_column.download_button("CSV", lambda: to_csv(info, units), f"{info.id}.csv", "text/csv", icon=":material/table:")
junit_column.download_button(
    "JUnit XML", lambda: to_junit(info, units), f"{info.id}.junit.xml", "application/xml", icon=":material/checklist:"
)
report_lang: ReportLang = "zh" if lang() == "zh" else "en"
html_column.download_button(
    "HTML",
    lambda: experiment_html(info, summaries, units, found, lang=report_lang),
    f"{info.id}.html",
    "text/html",
    icon=":material/html:",
)
