"""Sparrow's Streamlit entry point (placeholder until the workbench pages land)."""

import streamlit as st

st.set_page_config(page_title="Sparrow", page_icon="🐦")
st.title("🐦 Sparrow")
st.info("The chat workbench is being built. Meanwhile use the command line: `python -m agent_core ask \"...\"`.")
