"""The UI language the browser asks for (``st.context.locale``), used until the person picks one."""

from __future__ import annotations

import streamlit as st

from agent_core.views import LANGS


def browser_language() -> str:
    """``zh`` for a browser set to any Chinese locale (``zh-CN``, ``zh-TW``…), else ``en``."""
    try:
        locale = str(st.context.locale or "")
    except (AttributeError, RuntimeError):  # no browser session (a bare script run)
        locale = ""
    code = locale.split("-")[0].split("_")[0].lower()
    return code if code in LANGS else "en"
