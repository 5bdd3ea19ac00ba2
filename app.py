"""Sparrow: page setup, the shared sidebar, and navigation. Each page is its own short script in pages/."""

import streamlit as st

from pages.ui.i18n import t
from pages.ui.sidebar import language_picker, model_settings

st.set_page_config(page_title="Sparrow", page_icon="🐦", layout="wide")
language_picker()
page = st.navigation(
    [
        st.Page("pages/chat.py", title=t("nav.chat"), icon=":material/chat:", default=True),
        st.Page("pages/sessions.py", title=t("nav.sessions"), icon=":material/folder_open:"),
        st.Page("pages/traces.py", title=t("nav.traces"), icon=":material/timeline:"),
    ]
)
model_settings()
page.run()
