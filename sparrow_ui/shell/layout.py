"""Page layout that Streamlit's layout primitives cannot say alone: a trace column that stays in view, the
selected turn's highlight, the step status chips, wrapping code at projector width, and a Chat page that opens at
its top.

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
<script data-sparrow>
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


_TOP = """
<script data-sparrow>
/* %s */
(function () {
  // A page with a chat input pinned to its bottom scrolls in Streamlit's stick-to-bottom box, which starts out
  // "sticky" and follows the content down as it is drawn. Scrolling it up once the content no longer grows ends
  // that: the page stays at its top (and follows again when the user scrolls to the bottom).
  const box = document.querySelector('[data-testid="stAppScrollToBottomContainer"]');
  if (!box) return;
  const kinds = ['wheel', 'touchstart', 'keydown', 'pointerdown'];
  let touched = false;
  const touch = (event) => { if (event.isTrusted) touched = true; };
  kinds.forEach((kind) => window.addEventListener(kind, touch, {capture: true}));
  const runs = window.sparrowRunsFollowed || 0;
  const began = Date.now();
  let height = -1, still = 0;
  const timer = setInterval(() => {
    // until the user acts, a run is followed, or the page stood still at its top for a second (at most 15 s)
    const done = touched || (window.sparrowRunsFollowed || 0) !== runs || still >= 20 || Date.now() - began > 15000;
    if (done) {
      clearInterval(timer);
      kinds.forEach((kind) => window.removeEventListener(kind, touch, {capture: true}));
      return;
    }
    still = box.scrollTop === 0 && box.scrollHeight === height ? still + 1 : 0;
    height = box.scrollHeight;
    if (box.scrollTop > 0) box.scrollTop = 0;
  }, 50);
})();
</script>
"""
_FOLLOW = """
<script data-sparrow>
/* %s */
(function () {
  // A run just went live: its question and answer are at the bottom, where the stick-to-bottom box follows them.
  const box = document.querySelector('[data-testid="stAppScrollToBottomContainer"]');
  if (!box || !%s) return;
  window.sparrowRunsFollowed = (window.sparrowRunsFollowed || 0) + 1;
  box.scrollTop = box.scrollHeight;
})();
</script>
"""


def open_at_top(token: str) -> None:
    """Scroll the Chat page to its top whenever ``token`` (the session shown; none: a new chat) changes in this tab.

    Drawn on every run at the same place, so the page's elements never shift (a conditional element here once
    left a stale Stop button behind a live run); the browser runs the script again only when its text changes.
    """
    safe = re.sub(r"[^A-Za-z0-9_-]", "", token)[:80]
    st.html(_TOP % safe, unsafe_allow_javascript=True)


def follow_run(run_id: str | None) -> None:
    """Scroll the Chat page to its bottom when a run goes live (drawn on every run at the same place, too)."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "", run_id or "")[:80]
    st.html(_FOLLOW % (safe, "true" if safe else "false"), unsafe_allow_javascript=True)
