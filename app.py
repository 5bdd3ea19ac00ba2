"""Sparrow: page setup and navigation. Each page is its own short script in pages/ and draws the shared sidebar."""

import streamlit as st

from sparrow_ui.shell.navigation import navigation

st.set_page_config(page_title="Sparrow", page_icon="🐦", layout="wide")
navigation().run()
