"""The MCP servers section of the Tools page: each configured server, its state, its tools, and what went wrong."""

from __future__ import annotations

import streamlit as st

from agent_core.guards.untrusted import neutralize
from agent_core.runtime.catalog import Catalog
from agent_core.tools.mcp import ServerStatus
from sparrow_ui.translations.i18n import t

_ICONS = {
    "running": ":material/check_circle:",
    "failed": ":material/error:",
    "stopped": ":material/pause_circle:",
    "disabled": ":material/block:",
    "unavailable": ":material/extension_off:",
}


def mcp_servers_section(catalog: Catalog) -> None:
    """A subheader, then one block per MCP server (or how to add one when there is none)."""
    st.subheader(t("mcp.title"))
    if not catalog.mcp_servers:
        st.caption(t("mcp.none"))
        return
    for server in catalog.mcp_servers:
        _server(server.status())


def _server(status: ServerStatus) -> None:
    icon = _ICONS.get(status.state, ":material/hourglass_empty:")
    with st.container(border=True):
        st.markdown(neutralize(f"{icon} **{status.name}** · `{status.transport}` · {status.state}"))
        st.caption(neutralize(f"`{status.target}`"))
        notes = [t("mcp.trusted") if status.trusted else t("mcp.untrusted")]
        if status.start_ms is not None:
            notes.append(t("mcp.started", ms=status.start_ms))
        st.caption(" · ".join(notes))
        if status.tools:
            names = ", ".join(f"`{mine}` ({theirs})" for mine, theirs in status.tools)
            st.markdown(neutralize(t("mcp.tools", tools=names)))
        elif status.state == "running":
            st.caption(t("mcp.no_tools"))
        if status.problem:
            show = st.error if status.state in ("failed", "unavailable") else st.warning
            show(neutralize(status.problem))  # may quote the server's own stderr
