"""Process-wide resources (store, live runs) and the per-browser state (current session, settings)."""

from __future__ import annotations

import os
from dataclasses import dataclass

import streamlit as st

from agent_core.agent import AgentSettings
from agent_core.approval_policy import app_defaults
from agent_core.live import LiveRuns
from agent_core.models import OpenAIChatModel
from agent_core.store import SessionStore
from agent_core.tools import Tool
from agent_core.tools.catalog import Catalog, tool_catalog


@st.cache_resource(show_spinner=False)
def get_store() -> SessionStore:
    """The session store for this server process ($DATABASE_URL or ./data/sparrow.db)."""
    return SessionStore.open(secrets=[os.environ.get("OPENAI_API_KEY")])


@st.cache_resource(show_spinner=False)
def live_runs() -> LiveRuns:
    """Runs in progress, shared by every browser tab of this server process."""
    return LiveRuns()


@st.cache_resource(show_spinner=False)
def tools_catalog() -> Catalog:
    """Built-in, web and plugin tools (SPARROW_TOOLS, entry points), loaded once per server process."""
    return tool_catalog()


def available_tools() -> dict[str, Tool]:
    """Every tool the app can enable, by name."""
    return {t.name: t for t in tools_catalog().tools}


@dataclass(frozen=True)
class ModelConfig:
    """What the sidebar configures: where the model is, and how the agent runs."""

    provider: str
    base_url: str | None
    model: str
    api_key: str | None
    protocol: str
    max_steps: int
    temperature: float
    tools: tuple[str, ...]
    max_tools: int = 0
    """Offer at most this many tools per step, the most relevant (0: all of them)."""
    max_tokens: int = 4096
    """Most tokens one model reply may have (sent to the server as ``max_tokens``)."""
    tool_approval: tuple[tuple[str, bool], ...] = ()
    """Per-tool approval choices from the Tools page (tool name, asks first)."""

    @property
    def configured(self) -> bool:
        """True when a request can be attempted: a key, or an explicit (local) endpoint."""
        return bool(self.api_key) or bool(self.base_url)

    def chat_model(self) -> OpenAIChatModel:
        """A client for the configured endpoint (raises ModelError when nothing is configured)."""
        return OpenAIChatModel(self.model, api_key=self.api_key, base_url=self.base_url)

    def agent_settings(self) -> AgentSettings:
        """Agent settings from the sidebar."""
        return AgentSettings(
            max_steps=self.max_steps,
            temperature=self.temperature,
            max_tools=self.max_tools or None,
            max_tokens=self.max_tokens,
            tool_approval={**app_defaults(), **dict(self.tool_approval)},
        )

    def selected_tools(self) -> list[Tool]:
        """The enabled tools, in the registry's order."""
        tools = available_tools()
        return [tools[name] for name in tools if name in self.tools]


def secret_key() -> str | None:
    """OPENAI_API_KEY from the environment or from .streamlit/secrets.toml."""
    if os.environ.get("OPENAI_API_KEY"):
        return os.environ["OPENAI_API_KEY"]
    try:
        value = st.secrets.get("OPENAI_API_KEY")
    except Exception:  # no secrets file: that is fine
        return None
    return str(value) if value else None


def current_session_id() -> str | None:
    """The session shown in this browser tab (kept in the URL so refresh and shared links reopen it).

    Page navigation drops query parameters, so the tab also remembers it and puts it back in the URL.
    """
    value = st.query_params.get("session") or None
    if value:
        st.session_state["session_id"] = value
        return value
    remembered = st.session_state.get("session_id")
    if remembered:
        st.query_params["session"] = remembered
    return remembered


def open_session(session_id: str | None) -> None:
    """Show ``session_id`` (None: a new, empty chat) in this tab."""
    if session_id:
        st.query_params["session"] = session_id
    elif "session" in st.query_params:
        del st.query_params["session"]
    st.session_state["session_id"] = session_id
    st.session_state.pop("selected_run", None)
    st.session_state.pop("visible_turns", None)
