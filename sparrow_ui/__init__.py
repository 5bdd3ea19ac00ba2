"""UI helpers shared by the pages: state, settings, i18n and the event renderers."""

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

# Streamlit treats an app with a pages/ folder as a legacy (v1) multipage app until some script calls
# st.navigation. So the first visit after a server start that opens a page URL directly (a shared
# /sessions link) runs that page alone, without app.py. Every page imports this package: switch the
# legacy mode off and rerun, which goes through app.py's navigation to the same page.
if PagesManager.uses_pages_directory:
    PagesManager.uses_pages_directory = False
    st.rerun()
