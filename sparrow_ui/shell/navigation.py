"""The app's pages and its ``st.navigation``, and the way every page makes sure it runs inside it.

Streamlit runs an app with a ``pages/`` folder beside its entrypoint in its legacy multipage mode until
``st.navigation`` is called: "If you call st.navigation in your app (in any session), Streamlit will switch
to using the newer, Page-and-navigation multipage structure" (Streamlit docs, "Creating multipage apps using
the pages/ directory"). So on a fresh server, a first visit that opens a page URL directly (a shared
``/sessions`` link) runs that page script alone, without app.py. ``through_app()`` notices this, calls the
app's navigation itself (which switches the server to it, for every session) and reruns: the rerun goes
through app.py to the same page, whose URL path is unchanged. Only public Streamlit commands are used;
tests/e2e/test_navigation_e2e.py fails without this.
"""

from __future__ import annotations

import threading

import streamlit as st

from sparrow_ui.access.auth import read_only
from sparrow_ui.access.page_run import new_page_run
from sparrow_ui.shell.presentation_link import PAGE as PRESENT_PAGE
from sparrow_ui.shell.presentation_link import follow_url
from sparrow_ui.translations.i18n import t
from sparrow_ui.translations.strings_demo import td
from sparrow_ui.translations.strings_experiments import te

_navigated = threading.Event()
"""Set once this server process has called the app's ``st.navigation`` (Streamlit's own switch is as wide)."""


def pages() -> list[st.Page]:
    """The page scripts in pages/, with their titles in the UI language; Chat is the home page.

    A share link's tab gets only Chat, Traces and presentation mode (all read-only).
    """
    every = {
        "pages/chat.py": dict(title=t("nav.chat"), icon=":material/chat:", default=True),
        "pages/sessions.py": dict(title=t("nav.sessions"), icon=":material/folder_open:"),
        "pages/traces.py": dict(title=t("nav.traces"), icon=":material/timeline:"),
        "pages/memory.py": dict(title=t("nav.memory"), icon=":material/psychology_alt:"),
        "pages/tools.py": dict(title=t("nav.tools"), icon=":material/handyman:"),
        "pages/compare.py": dict(title=td("nav.compare"), icon=":material/compare_arrows:"),
        "pages/experiments.py": dict(title=te("nav.experiments"), icon=":material/science:"),
        PRESENT_PAGE: dict(title=td("present.enter"), icon=":material/co_present:", visibility="hidden"),
    }
    shared = ("pages/chat.py", "pages/traces.py", PRESENT_PAGE)
    return [st.Page(path, **options) for path, options in every.items() if not read_only() or path in shared]


def navigation() -> st.Page:
    """The app's sidebar navigation; returns the page to run (app.py calls this once per run, first)."""
    new_page_run()
    page = st.navigation(pages())
    _navigated.set()
    follow_url(page)
    return page


def through_app() -> None:
    """Rerun through app.py when this page was started without it (the legacy mode described above)."""
    new_page_run()  # the page may run without app.py, whose navigation starts a page run too
    if not _navigated.is_set():
        navigation()
        st.rerun()
