"""Process-wide resources (store, live runs, tools) and this tab's state: the open session and the chosen turn."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import streamlit as st

from agent_core.engine.agent import AgentSettings
from agent_core.engine.approvals import app_defaults
from agent_core.engine.state import RunState
from agent_core.models import OpenAIChatModel
from agent_core.models.endpoints import EndpointPolicy
from agent_core.models.local_llama import local_chat_model
from agent_core.runtime.catalog import Catalog, tool_catalog
from agent_core.runtime.run_settings import RunSettings
from agent_core.runtime.sessions import LiveRuns
from agent_core.store import SessionStore
from agent_core.tools import Tool
from sparrow_ui.access.auth import SHARE_PARAM, current_actor, share_token
from sparrow_ui.access.page_run import once_per_page_run
from sparrow_ui.shell.endpoint_config import endpoint_policy

SESSION_PARAM = "session"
"""The query parameter that holds the open session: the URL owns it, everything else derives from it."""
_URL_COPY = "_session_param"
_SELECTED_RUN = "selected_run"


@st.cache_resource(show_spinner=False)
def shared_store() -> SessionStore:
    """The session store for this server process ($DATABASE_URL or ./data/sparrow.db), acting as the local admin.

    Every key the operator configured is masked in what it stores.
    """
    return SessionStore.open(secrets=[e.api_key for e in endpoint_policy().endpoints])


@once_per_page_run
def get_store() -> SessionStore:
    """The store acting for this tab's user (see ``auth.current_actor``): it shows and changes only theirs.

    One per page run: who the tab acts for (a share link is checked against the database) is asked once.
    """
    store = shared_store()
    return store.acting_as(current_actor(store))


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
    """The sidebar's settings with what is never recorded or saved: the key typed in this tab, the operator's policy."""

    run: RunSettings = field(default_factory=RunSettings)
    """Endpoint, model, protocol, tools and the agent's settings (the one shape the runs record)."""
    api_key: str | None = None
    """Only what the user typed in this tab; the policy adds the operator's keys where they may go."""
    endpoints: EndpointPolicy = field(default_factory=EndpointPolicy)
    """The operator's endpoints and keys, the lock of model settings, the address rules for typed URLs."""

    @property
    def local(self) -> bool:
        """The built-in small model, on this machine: single-user mode only (with sign-in, nobody starts servers)."""
        return self.run.provider == "local" and not self.endpoints.locked and not self.endpoints.guard_addresses

    @property
    def configured(self) -> bool:
        """True when a request can be attempted: a key for this endpoint, or an explicit (local) endpoint."""
        default = self.endpoints.endpoints[0] if self.endpoints.endpoints else None
        chosen = self.endpoints.operator_endpoint(self.run.base_url or (default.base_url if default else None))
        if self.local:
            return True
        return bool(self.api_key or self.run.base_url or (chosen and (chosen.api_key or chosen.base_url)))

    def with_model(self, model: str, base_url: str | None = None) -> ModelConfig:
        """The same configuration asking ``model`` (at ``base_url``, when given): the policy still decides."""
        return replace(self, run=self.run.changed(model=model, base_url=base_url or self.run.base_url))

    def chat_model(self) -> OpenAIChatModel:
        """A client for the configured endpoint (raises ModelError when nothing is configured or it is refused).

        Every model the app builds comes from here, so the operator's keys go only where ``endpoints`` allows.
        """
        if self.local:  # the built-in small model: its server starts now, and stops at exit
            return local_chat_model()
        base_url, typed_key, model = self.endpoints.pinned(self.run.base_url, self.api_key, self.run.model)
        connection = self.endpoints.connection(base_url, typed_key)
        return OpenAIChatModel(
            model,
            api_key=connection.api_key,
            base_url=connection.base_url,
            use_environment=False,
            address_policy=connection.address_policy,
        )

    def agent_settings(self) -> AgentSettings:
        """The run's settings: the sidebar's, the per-tool approval choices over the app's defaults."""
        return replace(self.run.agent, tool_approval={**app_defaults(), **self.run.agent.tool_approval})

    def selected_tools(self) -> list[Tool]:
        """The enabled tools, in the registry's order."""
        tools = available_tools()
        return [tools[name] for name in tools if self.run.enables(name)]


def current_session_id() -> str | None:
    """The session open in this tab: the URL's ``?session=`` (a refresh or a shared link reopens it).

    Streamlit's page navigation drops query parameters; the tab's copy of the last one puts it back. A share
    link's tab always shows the link's session.
    """
    actor = get_store().actor
    if actor.shared_session is not None and st.query_params.get(SESSION_PARAM) != actor.shared_session:
        st.query_params[SESSION_PARAM] = actor.shared_session
    if SESSION_PARAM not in st.query_params and st.session_state.get(_URL_COPY):
        st.query_params[SESSION_PARAM] = st.session_state[_URL_COPY]
    return _copy_url()


def open_session(session_id: str | None) -> None:
    """Open ``session_id`` in this tab (None: a new, empty chat)."""
    if session_id:
        st.query_params[SESSION_PARAM] = session_id
    else:
        st.query_params.pop(SESSION_PARAM, None)
    _copy_url()


def open_in_chat(session_id: str) -> None:
    """Go to the Chat page with ``session_id`` open (in the URL, which the Chat page then follows)."""
    st.switch_page("pages/chat.py", query_params={SESSION_PARAM: session_id, **_share_param()})


def _share_param() -> dict[str, str]:
    token = share_token()
    return {SHARE_PARAM: token} if token else {}


def open_in_traces(session_id: str) -> None:
    """Go to the Traces page with ``session_id`` open."""
    st.switch_page("pages/traces.py", query_params={SESSION_PARAM: session_id, **_share_param()})


def _copy_url() -> str | None:
    """The URL's session, copied for the next page navigation: the one place that writes the copy."""
    value = st.query_params.get(SESSION_PARAM) or None
    st.session_state[_URL_COPY] = value
    return value


def selected_turn(turns: Sequence[RunState]) -> RunState | None:
    """The turn whose trace is shown: the one picked on the Chat page if it is one of ``turns``, else the last."""
    picked = st.session_state.get(_SELECTED_RUN)
    return next((turn for turn in turns if turn.run_id == picked), turns[-1] if turns else None)


def select_turn(run_id: str | None) -> None:
    """Show this turn's trace (None: follow the last turn)."""
    st.session_state[_SELECTED_RUN] = run_id
