"""Streamlit helpers shared by the page scripts in pages/: navigation, state, sidebar, renderers, i18n."""
