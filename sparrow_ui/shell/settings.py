"""The sidebar's settings and the UI language: kept in one place that page changes, reloads and new chats leave alone.

Streamlit gives a widget drawn by a page script an identity tied to that page, so the same sidebar widget on
another page starts again from its default. The values therefore live here, in one ``RunSettings`` (the
shape the agent is built from and its runs record) that no widget owns; each widget is seeded from it before it
is drawn and writes back to it when changed.

Every change of a setting is also written to ``$SPARROW_DATA_DIR/ui_settings.json`` (the ``RunSettings`` as
JSON, the per-tool approval choices with them; never the API key, which is not part of it), so a reload or a
new tab of this server starts with them. With sign-in each user has a file of their own
(``ui_settings/<hash of the owner key>.json``): one user's choices are nobody else's defaults, and a tab whose user
changes (sign out, sign in as someone else) starts again from that user's. The language belongs to the person looking,
so it lives in the URL (``?lang=zh``): a reload or a shared link keeps it, another tab is not changed.
Until one is picked it is the browser's (``st.context.locale``); the URL holds only a choice that differs from it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st
from pydantic import ValidationError

from agent_core.env_settings import env_settings
from agent_core.models import DEFAULT_MODEL
from agent_core.models.endpoints import guess_provider
from agent_core.runtime.run_settings import RunSettings
from agent_core.views import LANGS
from sparrow_ui.access.auth import identity
from sparrow_ui.access.page_run import once_per_page_run
from sparrow_ui.shell.browser_language import browser_language
from sparrow_ui.shell.state import available_tools

_STATE = "_sparrow_settings"
_KEY = "_sparrow_api_key"
_LANG = "_sparrow_lang"
_USER = "_sparrow_settings_user"
LANG_PARAM = "lang"
"""The query parameter that holds a language other than English."""
SECRET = "cfg_api_key"
"""The widget of the one setting that is never written anywhere but this tab's memory."""
LANGUAGE = "lang_choice"
"""The widget of the UI language (kept in the URL, not in the settings file)."""
FIELDS = {
    "cfg_provider": "provider",
    "cfg_base_url": "base_url",
    "cfg_model": "model",
    "cfg_protocol": "protocol",
    "cfg_tools": "tools",
    "cfg_max_steps": "max_steps",
    "cfg_temperature": "temperature",
    "cfg_max_tools": "max_tools",
    "cfg_max_tokens": "max_tokens",
    "cfg_repeat_policy": "repeat_policy",
}
"""The sidebar widget of each ``RunSettings`` field (an ``AgentSettings`` field names the one in ``agent``)."""
RANGES: dict[str, tuple[float, float]] = {
    "max_steps": (1, 30),
    "temperature": (0.0, 1.5),
    "max_tools": (1, 50),
    "max_tokens": (16, 200_000),
}
"""What the sidebar's sliders and number boxes offer; a settings file outside them is not loaded."""


def settings_path(user: str | None = None) -> Path:
    """Where the settings are kept, beside the session database: one file, or one per signed-in ``user``."""
    data = env_settings().sparrow_data_dir
    if user is None:
        return data / "ui_settings.json"
    return data / "ui_settings" / f"{hashlib.sha256(user.encode('utf-8')).hexdigest()[:32]}.json"


def _from_environment() -> RunSettings:
    """The first-visit settings: what OPENAI_BASE_URL and SPARROW_MODEL say."""
    env_url = env_settings().openai_base_url
    guessed = guess_provider(env_url)
    return RunSettings(
        provider=guessed.key,
        base_url=env_url or (guessed.base_url if guessed.key != "openai" else "") or None,
        model=env_settings().sparrow_model or (guessed.models[0] if guessed.models else DEFAULT_MODEL),
    )


def fits_sidebar(chosen: RunSettings) -> bool:
    """True when every limit is one the sidebar's widgets can show (None, "no limit", only where they allow it)."""
    values = {name: getattr(chosen.agent, name) for name in RANGES}
    if values["max_steps"] is None or values["temperature"] is None:
        return False
    return all(values[name] is None or low <= values[name] <= high for name, (low, high) in RANGES.items())


def _load(user: str | None) -> RunSettings:
    """The user's saved settings (either file shape), or the environment's when there are none or they do not fit."""
    try:
        loaded = RunSettings.from_saved(json.loads(settings_path(user).read_text(encoding="utf-8")))
    except (OSError, ValidationError, ValueError, TypeError, AttributeError):
        return _from_environment()
    return loaded if fits_sidebar(loaded) else _from_environment()


def current() -> RunSettings:
    """This tab's settings (loaded once per browser session and user); unknown tool names are dropped."""
    user = identity()
    if _STATE not in st.session_state or st.session_state.get(_USER) != user:
        st.session_state[_USER] = user
        loaded = _load(user)
        if loaded.tools is not None:
            loaded = loaded.changed(tools=tuple(name for name in loaded.tools if name in available_tools()))
        st.session_state[_STATE] = loaded
        st.session_state[_KEY] = ""
        asked = st.query_params.get(LANG_PARAM)
        st.session_state[_LANG] = asked if asked in LANGS else browser_language()
    return st.session_state[_STATE]


def typed_key() -> str:
    """The API key typed in this tab ("" when none)."""
    current()
    return str(st.session_state[_KEY])


def change(**fields: Any) -> None:
    """Change fields of this tab's settings (``RunSettings.changed``) and save them."""
    st.session_state[_STATE] = current().changed(**fields)
    _save()


def get(key: str) -> Any:
    """The value the sidebar widget ``key`` shows (a blank URL for the default one, every tool for "all")."""
    chosen = current()
    if key in (SECRET, LANGUAGE):
        return st.session_state[_KEY if key == SECRET else _LANG]
    name = FIELDS[key]
    value = getattr(chosen, name) if name in RunSettings.model_fields else getattr(chosen.agent, name)
    if name == "base_url":
        return value or ""
    if name == "tools":
        return list(available_tools()) if value is None else list(value)
    return value


@once_per_page_run
def language() -> str:
    """The chosen UI language code, looked up once per page run (``put`` forgets it)."""
    return str(get(LANGUAGE))


def put(key: str, value: Any) -> None:
    """Change what the sidebar widget ``key`` holds (and the widget, when it is drawn next), and save it."""
    current()
    if key in (SECRET, LANGUAGE):
        st.session_state[_KEY if key == SECRET else _LANG] = value
        language.forget()
    else:
        change(**{FIELDS[key]: tuple(value) if FIELDS[key] == "tools" else value})
    st.session_state[key] = value


def _save() -> None:
    """Write the settings; a read-only data directory only means they are not kept."""
    try:
        path = settings_path(st.session_state.get(_USER))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(current().model_dump_json(indent=1), encoding="utf-8")
    except OSError:
        pass


def keep_language_in_url() -> None:
    """Put the chosen language in the URL (page navigation drops query parameters, so on every run)."""
    chosen = get(LANGUAGE)
    if chosen == browser_language():
        st.query_params.pop(LANG_PARAM, None)
    elif st.query_params.get(LANG_PARAM) != chosen:
        st.query_params[LANG_PARAM] = chosen


def bound(key: str, on_change: Callable[[], None] | None = None) -> dict[str, Any]:
    """Seed the widget ``key`` from the kept value; returns the widget's ``key`` and ``on_change`` arguments.

    ``on_change`` replaces the plain "keep the new value" callback (it must keep the value itself).
    """
    st.session_state[key] = get(key)
    if on_change is not None:
        return {"key": key, "on_change": on_change}
    return {"key": key, "on_change": _kept, "args": (key,)}


def _kept(key: str) -> None:
    """A widget changed: keep its new value (a value the settings refuse leaves them as they were)."""
    try:
        put(key, st.session_state[key])
    except ValidationError:
        st.session_state[key] = get(key)
