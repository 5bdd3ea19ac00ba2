"""Truncated labels carry their full text: a session title cut off in a picker, a total in a metric, a button label.

Streamlit ends text that does not fit with "…" and offers no way to read the rest. One script per page (a fixed
string, never built from model or user text) gives every such element a ``title`` with its full text while it is
cut off, so hovering shows it and it is the element's accessible description; an open picker widens to its longest
option where the page has room.
"""

from __future__ import annotations

import streamlit as st

_STYLE = """
<style>
/* an open picker is as wide as its longest option, up to what the page has room for */
[data-testid="stSelectboxVirtualDropdown"] {
  width: max-content !important; min-width: var(--trigger-width); max-width: min(40rem, 60vw);
}
/* a script drawn by Sparrow takes no space on the page */
[data-testid="stElementContainer"]:has(script[data-sparrow]) { display: none; }
</style>
"""
_FULL_TEXT = """
<script data-sparrow="full-text">
(function () {
  if (window.sparrowFullText) return;  // once per page: the observer sees everything drawn after
  window.sparrowFullText = true;
  const CUT = [
    'input[role="combobox"]', '[role="option"] > div', 'summary p', 'button p',
    '[data-testid="stMetricValue"] > div', '[data-testid="stCaptionContainer"] p', '[data-testid="stTab"] p',
  ].join(', ');
  const textOf = (e) => (e.tagName === 'INPUT' ? e.value : e.textContent).trim();
  const mark = () => {
    for (const e of document.querySelectorAll(CUT)) {
      const text = textOf(e);
      const cut = text && e.scrollWidth > e.clientWidth + 1;
      if (cut && e.title !== text) { e.title = text; e.dataset.fullText = '1'; }
      else if (!cut && e.dataset.fullText) { e.removeAttribute('title'); delete e.dataset.fullText; }
    }
  };
  let queued = false;
  const soon = () => { if (!queued) { queued = true; requestAnimationFrame(() => { queued = false; mark(); }); } };
  new MutationObserver(soon).observe(document.body, {
    subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['value'],
  });
  window.addEventListener('resize', soon);
  document.addEventListener('input', soon, true);
  soon();
})();
</script>
"""


def full_text_on_hover() -> None:
    """Give every truncated label on this page its full text on hover (drawn in the sidebar; takes no space)."""
    st.sidebar.html(_STYLE)
    st.sidebar.html(_FULL_TEXT, unsafe_allow_javascript=True)
