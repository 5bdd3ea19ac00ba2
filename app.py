"""Sparrow: page setup and navigation. Each page is its own short script in pages/ and draws the shared sidebar."""

import streamlit as st

from sparrow_ui.i18n import t

st.set_page_config(page_title="Sparrow", page_icon="🐦", layout="wide")
page = st.navigation(
    [
        st.Page("pages/chat.py", title=t("nav.chat"), icon=":material/chat:", default=True),
        st.Page("pages/sessions.py", title=t("nav.sessions"), icon=":material/folder_open:"),
        st.Page("pages/traces.py", title=t("nav.traces"), icon=":material/timeline:"),
        st.Page("pages/memory.py", title=t("nav.memory"), icon=":material/psychology_alt:"),
        st.Page("pages/tools.py", title=t("nav.tools"), icon=":material/handyman:"),
    ]
)
page.run()
