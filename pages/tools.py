"""Tools: every tool the agent can use, where it comes from, its parameters, and how to add your own."""

from __future__ import annotations

import streamlit as st

from sparrow_ui.i18n import t
from sparrow_ui.mcp_panel import mcp_servers_section
from sparrow_ui.render import safe_markdown
from sparrow_ui.sidebar import frame
from sparrow_ui.state import tools_catalog

config = frame()
catalog = tools_catalog()
st.header(t("nav.tools"))
st.caption(t("tools.intro"))
for problem in catalog.errors:
    st.error(problem, icon=":material/extension_off:")

for item in catalog.tools:
    enabled = item.name in config.tools
    icon = ":material/check_circle:" if enabled else ":material/radio_button_unchecked:"
    origin = catalog.origins.get(item.name, "")
    with st.expander(f"`{item.name}` · {origin}", icon=icon):
        st.markdown(safe_markdown(item.description))  # MCP servers write their own descriptions
        notes = []
        if item.needs_approval:
            notes.append(t("tools.needs_approval"))
        if item.timeout is not None:
            notes.append(t("tools.timeout", seconds=item.timeout))
        notes.append(t("tools.enabled") if enabled else t("tools.disabled"))
        st.caption(" · ".join(notes))
        st.json(item.parameters, expanded=True)

mcp_servers_section(catalog)

with st.expander(t("tools.custom_title"), icon=":material/extension:"):
    st.markdown(t("tools.custom_body"))
