"""The per-tool approval setting in the app: a toggle per tool, kept (and saved) in the sidebar's settings."""

from __future__ import annotations

import streamlit as st

from agent_core.engine.approvals import app_defaults, asks_first, why_ask
from agent_core.tools import Tool
from sparrow_ui.shell import settings
from sparrow_ui.translations.i18n import t


def overrides() -> dict[str, bool]:
    """The per-tool choices made on the Tools page (empty: every tool keeps its default)."""
    return dict(settings.current().agent.tool_approval)


def approval_toggle(tool: Tool) -> None:
    """ "Ask before each call" for ``tool``, defaulting to the policy (tools that send or store data ask)."""
    key = f"ask_first_{tool.name}"
    st.session_state[key] = asks_first(tool, {**app_defaults(), **overrides()})
    reason = why_ask(tool)
    st.toggle(
        t("tools.ask_first"),
        key=key,
        help=t("tools.ask_first_why", why=reason) if reason else t("tools.ask_first_help"),
        on_change=_remember_choice,
        args=(tool,),
    )


def _remember_choice(tool: Tool) -> None:
    chosen = bool(st.session_state.get(f"ask_first_{tool.name}"))
    current = overrides()
    if chosen == asks_first(tool, app_defaults()):
        current.pop(tool.name, None)
    else:
        current[tool.name] = chosen
    settings.change(tool_approval=current)
