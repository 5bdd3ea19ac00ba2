"""Tools: every tool the agent can use, where it comes from, its parameters, and how to add your own."""

from __future__ import annotations

import streamlit as st

from agent_core.guards.untrusted import neutralize
from sparrow_ui.panels.mcp_panel import mcp_servers_section
from sparrow_ui.shell.approval_settings import approval_toggle
from sparrow_ui.shell.sidebar import frame
from sparrow_ui.shell.state import tools_catalog
from sparrow_ui.translations.i18n import t

config = frame()
catalog = tools_catalog()
st.header(t("nav.tools"))
st.caption(t("tools.intro"))
for problem in catalog.errors:
    st.error(neutralize(problem), icon=":material/extension_off:")

for item in catalog.tools:
    enabled = config.run.enables(item.name)
    icon = ":material/check_circle:" if enabled else ":material/radio_button_unchecked:"
    origin = catalog.origins.get(item.name, "")
    with st.expander(neutralize(f"`{item.name}` · {origin}"), icon=icon):
        st.markdown(neutralize(item.description))
        approval_toggle(item)
        notes = []
        if item.timeout is not None:
            notes.append(t("tools.timeout", seconds=item.timeout))
        notes.append(t("tools.enabled") if enabled else t("tools.disabled"))
        st.caption(" · ".join(notes))
        st.json(item.parameters, expanded=True)

mcp_servers_section(catalog)

with st.expander(t("tools.custom_title"), icon=":material/extension:"):
    st.markdown(t("tools.custom_body"))
