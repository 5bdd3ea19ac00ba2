"""Traces: timeline, inspector and replay (arrives with the observability work)."""

import streamlit as st

from pages.ui.i18n import t

st.header(t("nav.traces"))
st.info(t("traces.placeholder"))
