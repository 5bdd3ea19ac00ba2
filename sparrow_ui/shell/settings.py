"""The sidebar's settings and the UI language: kept in one place that page changes, reloads and new chats leave alone.

Streamlit gives a widget drawn by a page script an identity tied to that page, so the same sidebar widget on
another page starts again from its default. The values therefore live here, in a plain session-state dict
that no widget owns; each widget is seeded from it before it is drawn and writes back to it when changed.

Every change of a non-secret setting is also written to ``$SPARROW_DATA_DIR/ui_settings.json`` (never the
API key), so a reload or a new tab of this server starts with them. With sign-in each user has a file of their
own (``ui_settings/<hash of the owner key>.json``): one user's choices are nobody else's defaults, and a tab
whose user changes (sign out, sign in as someone else) starts again from that user's. The language belongs to the person
looking, so it lives in the URL (``?lang=zh``): a reload or a shared link keeps it, another tab is not changed.
Until one is picked it is the browser's (``st.context.locale``); the URL holds only a choice that differs from it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import streamlit as st
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_core.models import DEFAULT_MODEL
from agent_core.models.providers import guess_provider
from agent_core.runtime.env_settings import env_settings
from sparrow_ui.access.auth import identity
from sparrow_ui.shell.browser_language import browser_language
from sparrow_ui.shell.state import available_tools

_STATE = "_sparrow_settings"
_USER = "_sparrow_settings_user"
LANG_PARAM = "lang"
"""The query parameter that holds a language other than English."""
SECRET = "cfg_api_key"
"""The one setting that is never written anywhere but this tab's memory."""


class SavedSettings(BaseModel):
    """What may be written to disk: the non-secret sidebar settings (the language is read from the URL)."""

    model_config = ConfigDict(extra="ignore")

    cfg_provider: str = Field(default="openai", max_length=40)
    cfg_base_url: str = Field(default="", max_length=500)
    cfg_model: str = Field(default=DEFAULT_MODEL, max_length=200)
    cfg_protocol: Literal["react", "tools", "json"] = "react"
    cfg_max_steps: int = Field(default=10, ge=1, le=30)
    cfg_temperature: float = Field(default=0.0, ge=0.0, le=1.5)
    cfg_tools: list[str] | None = None
    """None: every available tool."""
    cfg_max_tools: int = Field(default=0, ge=0, le=50)
    cfg_max_tokens: int = Field(default=4096, ge=16, le=200_000)
    cfg_repeat_policy: Literal["redirect", "allow", "stop"] = "redirect"


def settings_path(user: str | None = None) -> Path:
    """Where the settings are kept, beside the session database: one file, or one per signed-in ``user``."""
    data = env_settings().sparrow_data_dir
    if user is None:
        return data / "ui_settings.json"
    return data / "ui_settings" / f"{hashlib.sha256(user.encode('utf-8')).hexdigest()[:32]}.json"


def _from_environment() -> SavedSettings:
    """The first-visit settings: what OPENAI_BASE_URL and SPARROW_MODEL say."""
    env_url = env_settings().openai_base_url
    guessed = guess_provider(env_url)
    return SavedSettings(
        cfg_provider=guessed.key,
        cfg_base_url=env_url or (guessed.base_url if guessed.key != "openai" else "") or "",
        cfg_model=env_settings().sparrow_model or (guessed.models[0] if guessed.models else DEFAULT_MODEL),
    )


def _load(user: str | None) -> SavedSettings:
    """The user's saved settings, or the environment's when there are none or the file is unreadable."""
    try:
        return SavedSettings.model_validate_json(settings_path(user).read_text(encoding="utf-8"))
    except (OSError, ValidationError, ValueError):
        return _from_environment()


def settings() -> dict[str, Any]:
    """This tab's settings (loaded once per browser session and user), by widget key."""
    user = identity()
    if _STATE not in st.session_state or st.session_state.get(_USER) != user:
        st.session_state[_USER] = user
        loaded = _load(user).model_dump()
        asked = st.query_params.get(LANG_PARAM)
        loaded["lang_choice"] = asked if asked in ("en", "zh") else browser_language()
        tools = list(available_tools())
        chosen = loaded["cfg_tools"]
        loaded["cfg_tools"] = tools if chosen is None else [name for name in chosen if name in tools]
        st.session_state[_STATE] = {**loaded, SECRET: ""}
    return st.session_state[_STATE]


def get(key: str) -> Any:
    """One setting's value."""
    return settings()[key]


def put(key: str, value: Any) -> None:
    """Change one setting (and its widget, when it is drawn next), and save the non-secret ones."""
    settings()[key] = value
    st.session_state[key] = value
    if key != SECRET:
        _save()


def _save() -> None:
    """Write the non-secret settings; a read-only data directory only means they are not kept."""
    values = {k: v for k, v in settings().items() if k not in (SECRET, "lang_choice")}
    try:
        saved = SavedSettings.model_validate(values)
        path = settings_path(st.session_state.get(_USER))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(saved.model_dump(), ensure_ascii=False, indent=1), encoding="utf-8")
    except (OSError, ValidationError):
        pass


def keep_language_in_url() -> None:
    """Put the chosen language in the URL (page navigation drops query parameters, so on every run)."""
    chosen = settings()["lang_choice"]
    if chosen == browser_language():
        st.query_params.pop(LANG_PARAM, None)
    elif st.query_params.get(LANG_PARAM) != chosen:
        st.query_params[LANG_PARAM] = chosen


def bound(key: str, on_change: Callable[[], None] | None = None) -> dict[str, Any]:
    """Seed the widget ``key`` from the kept value; returns the widget's ``key`` and ``on_change`` arguments.

    ``on_change`` replaces the plain "keep the new value" callback (it must keep the value itself).
    """
    st.session_state[key] = settings()[key]
    if on_change is not None:
        return {"key": key, "on_change": on_change}
    return {"key": key, "on_change": _kept, "args": (key,)}


def _kept(key: str) -> None:
    """A widget changed: keep its new value."""
    put(key, st.session_state[key])
