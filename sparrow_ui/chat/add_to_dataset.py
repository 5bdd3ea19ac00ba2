""" "Add to dataset" on a finished turn (Chat and Traces): its question, its answer as the expected one, editable."""

from __future__ import annotations

import streamlit as st

from agent_core.experiments import DatasetFileError, DatasetItem, DatasetNotFound, add_items, create_dataset
from agent_core.experiments.datasets import list_datasets
from agent_core.experiments.scoring import numbers_in
from agent_core.store import SessionStore
from agent_core.views.transcript import TurnView
from sparrow_ui.access.auth import read_only
from sparrow_ui.access.page_run import once_per_page_run
from sparrow_ui.translations.strings_experiments import te

CHECKS = ("exact", "contains", "number")
DEFAULT_DATASET = "My questions"
_LAST = "add_to_dataset_last"


def add_to_dataset_button(store: SessionStore, session_id: str, turn: TurnView) -> None:
    """A small popover under a finished turn that saves it as a dataset item (not for share-link viewers)."""
    if read_only() or turn.status != "completed":
        return
    with st.popover(te("exp.add_to_dataset"), icon=":material/playlist_add:", help=te("exp.add_help")):
        names = dataset_names(store)
        with st.form(key=f"add_ds_{turn.run_id}", border=False):
            name = st.text_input(
                te("exp.add_dataset"), value=st.session_state.get(_LAST) or (names[0] if names else DEFAULT_DATASET)
            )
            question = st.text_area(te("exp.add_question"), value=turn.question)
            expected = st.text_area(te("exp.add_expected"), value=turn.answer or "")
            check = st.radio(te("exp.add_check"), CHECKS, horizontal=True)
            if st.form_submit_button(te("exp.add_save"), type="primary"):
                save_item(store, name, question, expected, check, session_id)


@once_per_page_run
def dataset_names(store: SessionStore) -> list[str]:
    """The names of the datasets ``store`` sees, asked once per page run, not once per turn (a save forgets them)."""
    return sorted({d.name for d in list_datasets(store)})


def item_of(question: str, expected: str, check: str, session_id: str) -> DatasetItem:
    """The dataset item the form describes (``check``: exact, contains or number)."""
    record: dict[str, object] = {"question": question, "answer": expected, "metadata": {"from": session_id}}
    if check == "contains":
        record["expect"] = {"contains": expected}
    elif check == "number":
        record["expect"] = {"number": _first_number(expected), "tolerance": 1e-6}
    return DatasetItem.model_validate(record)


def save_item(store: SessionStore, name: str, question: str, expected: str, check: str, session_id: str) -> None:
    """Append the item to the dataset ``name`` (its next version), or make the dataset."""
    try:
        item = item_of(question, expected, check, session_id)
        try:
            info = add_items(store, name.strip(), [item])
        except DatasetNotFound:
            info = create_dataset(store, name, [item])
    except (ValueError, DatasetFileError) as exc:
        st.error(str(exc).splitlines()[0])
        return
    dataset_names.forget()
    st.session_state[_LAST] = info.name
    st.success(te("exp.add_saved", label=info.label))


def _first_number(text: str) -> float:
    from_text = numbers_in(text)
    if not from_text:
        raise ValueError("the expected answer holds no number to check")
    return from_text[0]
