"""Widgets whose option labels are translated, made to keep their choice when the language changes.

A selectbox sends its choice as the option's label, so once the labels change language the browser holds a
label that no longer exists and the next interaction resets the choice. These selectboxes have one widget
key per language and remember the choice under a plain key that every language shares.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

import streamlit as st

from sparrow_ui.translations.i18n import lang

T = TypeVar("T", bound=Hashable)


def widget_key(key: str) -> str:
    """The widget key of ``key`` in the current language."""
    return f"{key}.{lang()}"


def choose(key: str, value: Any) -> None:
    """Pick ``value`` in the selectbox ``key`` (from a callback, or before the selectbox is drawn)."""
    st.session_state[key] = value
    st.session_state[widget_key(key)] = value


def translated_selectbox(
    label: str,
    options: Sequence[T],
    *,
    key: str,
    default: T,
    format_func: Callable[[T], str],
    on_pick: Callable[[T], None] | None = None,
) -> T:
    """A selectbox over ``options`` (labels from ``format_func``, in the UI language) whose choice is ``key``.

    The labels are made here, in the script run, so whoever formats an option later gets the same text.
    ``on_pick(option)`` is called when the user picks an option.
    """
    labels = _labels(options, key, default, format_func)
    chosen: T = st.selectbox(  # pyright: ignore[reportAssignmentType]  # options are never empty: never None
        label,
        list(labels),
        key=widget_key(key),
        format_func=labels.__getitem__,
        on_change=_remember,
        args=(key, on_pick),
    )
    st.session_state[key] = chosen
    return chosen


def translated_radio(
    label: str, options: Sequence[T], *, key: str, default: T, format_func: Callable[[T], str], horizontal: bool = False
) -> T:
    """``st.radio`` with translated labels whose choice (``key``) survives a language switch."""
    labels = _labels(options, key, default, format_func)
    chosen: T = st.radio(  # pyright: ignore[reportAssignmentType]  # options are never empty: never None
        label,
        list(labels),
        key=widget_key(key),
        format_func=labels.__getitem__,
        horizontal=horizontal,
        on_change=_remember,
        args=(key,),
    )
    st.session_state[key] = chosen
    return chosen


def _labels(options: Sequence[T], key: str, default: T, format_func: Callable[[T], str]) -> dict[T, str]:
    """Option → label in the UI language; the widget starts on the remembered choice.

    It is seeded on every run: a page change gives a page's widget a new identity, which would start again
    from its first option (sparrow_ui.shell.settings explains why).
    """
    labels = {option: format_func(option) for option in options}
    remembered = st.session_state.get(key)
    st.session_state[widget_key(key)] = remembered if remembered in labels else default
    return labels


def _remember(key: str, on_pick: Callable[[Any], None] | None = None) -> None:
    """The user picked an option: remember it under the key every language shares."""
    st.session_state[key] = st.session_state[widget_key(key)]
    if on_pick is not None:
        on_pick(st.session_state[key])
