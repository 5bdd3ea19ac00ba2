"""Page layout that Streamlit's layout primitives cannot say alone: a trace column that stays in view, the
selected turn's highlight, the step status chips, and wrapping code at projector width.

The CSS targets only the ``st-key-<key>`` class Streamlit gives a keyed container (public API) and the
``data-testid`` of columns and code blocks; it is a fixed string, never built from model or user text.
"""

from __future__ import annotations

import re

import streamlit as st

TRACE_KEY = "trace-column"
"""The keyed container that holds the trace panel on the Chat page."""
SELECTED_KEY = "turn-selected"
"""The keyed container around the turn whose trace is shown."""

_CSS = """
<style>
[data-testid="stColumn"]:has(.st-key-trace-column) {
  position: sticky; top: 3.5rem; align-self: flex-start;
}
.st-key-trace-column {
  max-height: calc(100vh - 12rem); overflow-y: auto; overflow-x: hidden; padding-right: .25rem;
}
.st-key-turn-selected {
  border-left: 4px solid #1c83e1; padding-left: .6rem; border-radius: 4px;
  background: rgba(28, 131, 225, 0.05);
}
.st-key-trace-column [data-testid="stCode"] pre, .st-key-trace-column [data-testid="stCode"] code {
  white-space: pre-wrap !important; word-break: break-word;
}
[data-testid="stDataFrame"] { max-width: 100%; }
</style>
"""

_SCROLL = """
<script>
(function () {
  const box = document.querySelector('.st-key-trace-column');
  if (!box) return;
  const steps = box.querySelectorAll('[data-testid="stExpander"]');
  const index = %d;
  const target = steps[index] || steps[steps.length - 1];
  // Scroll the trace column only (never the page): to its top for the first step, else to the step.
  if (index === 0 || !target) { box.scrollTop = 0; return; }
  box.scrollTop += target.getBoundingClientRect().top - box.getBoundingClientRect().top - 8;
})();
</script>
"""


def page_style() -> None:
    """The Chat page's CSS (drawn once per run; takes no space)."""
    st.html(_CSS)


def scroll_trace_to(step_index: int, token: str) -> None:
    """Scroll the trace column so step ``step_index`` (0-based; -1: the last) is in view.

    ``token`` changes whenever the target does (the running step, the picked turn), so the script runs again.
    """
    index = step_index if step_index >= 0 else 9999
    safe = re.sub(r"[^A-Za-z0-9_-]", "", token)[:80]  # run ids of imported sessions are not to be trusted
    st.html(f"<!-- {safe} -->" + _SCROLL % index, unsafe_allow_javascript=True)
