"""Lookups asked once per page run: what cannot change while a page script runs (the secrets, who is signed in)
is read once, not once for every string drawn.

Without a secrets file Streamlit looks for one again at every ``st.secrets`` probe (one may be created at any
time), and a page run draws hundreds of strings, each of which asks who is looking (the language is theirs).
``new_page_run()`` forgets the last run's answers: app.py's navigation calls it, and so does each page as it
starts (``through_app``), since a page may run without app.py (Streamlit's legacy mode, AppTest's reruns). A
lookup before either in the same run (a widget's callback) sees the last run's answer; one where no page run
was ever started (a script run bare, a test calling the function) is asked every time, as before.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, Generic, ParamSpec, TypeVar

import streamlit as st

P = ParamSpec("P")
T = TypeVar("T")
_MEMO = "_sparrow_page_run"


def new_page_run() -> None:
    """Forget the last page run's answers (each run of app.py and of a page starts with it)."""
    st.session_state[_MEMO] = {}


class once_per_page_run(Generic[P, T]):  # a decorator, named like the function it stands for
    """``look_up`` asked at most once per page run for each set of arguments; the answer is kept for the run."""

    def __init__(self, look_up: Callable[P, T]) -> None:
        self._look_up = look_up
        self._name = f"{look_up.__module__}.{look_up.__qualname__}"
        functools.update_wrapper(self, look_up)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> T:
        """The answer of this page run (asked now when it is the run's first question with these arguments)."""
        memo = st.session_state.get(_MEMO)
        if memo is None:
            return self._look_up(*args, **kwargs)
        key = (self._name, args, tuple(sorted(kwargs.items())))
        if key not in memo:
            memo[key] = self._look_up(*args, **kwargs)
        return memo[key]

    def forget(self) -> None:
        """Ask again at the next call, whatever the arguments (the answer changed during the run)."""
        memo = st.session_state.get(_MEMO)
        if memo is not None:
            for key in [k for k in memo if k[0] == self._name]:
                del memo[key]


@once_per_page_run
def secrets() -> dict[str, Any]:
    """The app's secrets (``.streamlit/secrets.toml``) as plain dicts; {} without a secrets file."""
    try:
        return st.secrets.to_dict()
    except Exception:  # no secrets file, or one Streamlit cannot read: as if there were none
        return {}


def secrets_section(name: str) -> dict[str, Any]:
    """The ``[name]`` table of the secrets ({} without one)."""
    value = secrets().get(name)
    return dict(value) if isinstance(value, Mapping) else {}
