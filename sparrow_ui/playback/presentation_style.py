"""How presentation mode looks and follows the step: its CSS, and the script that scrolls the current step into view.

The CSS targets only ``st-key-<key>`` classes of keyed containers (public API) and ``data-testid`` attributes;
the script is a fixed string (the token that makes it run again is cleaned). The chat and trace columns are
each a box as tall as the window below the bar, so the page itself never scrolls: after each frame the trace
box brings its current (last, open) step into view, keeping as many of the folded steps above it as fit, and
the chat box shows its newest turn.
"""

from __future__ import annotations

import re

import streamlit as st

STYLE = """
<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"],
[data-testid="stSidebarNav"], header[data-testid="stHeader"] {display: none !important;}
.stMainBlockContainer, [data-testid="stMainBlockContainer"] {max-width: 100% !important; padding: 0.75rem 1.5rem 0;}
.st-key-present_controls {flex-wrap: nowrap !important; gap: 0.4rem; min-height: 0;}
.st-key-present_controls button {white-space: nowrap; min-height: 2.25rem; padding: 0.2rem 0.7rem;}
.st-key-present_controls [data-testid="stMarkdownContainer"] p {
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; margin: 0; font-size: 1.05rem;}
.st-key-present_title {min-width: 0; flex: 1 1 auto;}
.st-key-present_title [data-testid="stMarkdownContainer"] p {line-height: 1.6; padding-top: 0.1rem;}
.st-key-present_space, .st-key-present_pagedown, .st-key-present_pageup {display: none !important;}
[data-testid="stMain"] [data-testid="stProgress"] p {font-size: 1rem; margin: 0;}
.st-key-replay_chat, .st-key-replay_trace {
  max-height: calc(100vh - 7.5rem); overflow-y: auto; overflow-x: hidden; padding-right: 0.4rem;}
.st-key-replay_trace [data-testid="stText"], .st-key-replay_chat [data-testid="stChatMessage"] p {
  font-size: 1.45rem !important; line-height: 1.45;}
.st-key-replay_trace [data-testid="stCode"] code {font-size: 1.25rem !important; line-height: 1.4;}
.st-key-replay_trace [data-testid="stCode"] pre, .st-key-replay_trace [data-testid="stCode"] code {
  white-space: pre-wrap !important; word-break: break-word;}
.st-key-replay_trace [data-testid="stMarkdownContainer"] p {font-size: 1.2rem;}
.st-key-replay_trace summary p {font-size: 1.05rem !important;}
.st-key-replay_trace [data-testid="stCaptionContainer"], .st-key-replay_trace [data-testid="stCaptionContainer"] p,
.st-key-replay_chat [data-testid="stCaptionContainer"] p {font-size: 0.9rem !important;}
.st-key-replay_trace [data-testid="stLayoutWrapper"]:has(> [data-testid="stExpander"]):not(
  :has(~ [data-testid="stLayoutWrapper"] > [data-testid="stExpander"])) details {
  outline: 3px solid #1c83e1; border-radius: 0.5rem; background: rgba(28, 131, 225, 0.05);}
</style>
"""

_FOLLOW = """
<script>
/* %s */
(function () {
  const fit = (box) => {
    const room = window.innerHeight - box.getBoundingClientRect().top - 8;
    if (room > 200) box.style.maxHeight = room + 'px';
  };
  const chat = document.querySelector('.st-key-replay_chat');
  if (chat) { fit(chat); chat.scrollTop = chat.scrollHeight; }
  const follow = () => {
    const box = document.querySelector('.st-key-replay_trace');
    if (!box) return;
    const main = document.querySelector('[data-testid="stMain"]');
    if (main) main.scrollTop = 0;  // the page stays put: only the two boxes scroll
    fit(box);
    const steps = box.querySelectorAll('[data-testid="stExpander"]');
    const target = steps[steps.length - 1];
    if (!target) { box.scrollTop = 0; return; }
    const top = target.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
    const bottom = top + target.getBoundingClientRect().height;
    // as much of what came before as fits, but the whole step (or at least its top) in view
    box.scrollTop = Math.min(top - 8, Math.max(0, bottom - box.clientHeight + 8));
  };
  // again as the step's content is laid out (code blocks, fonts): its height is not final at once
  [0, 60, 200, 500, 1000].forEach((ms) => setTimeout(follow, ms));
})();
</script>
"""


def present_style() -> None:
    """The page's CSS (takes no space)."""
    st.html(STYLE)


def follow_step(token: str) -> None:
    """Bring the current step into view; ``token`` differs at every frame drawn, so the script runs each time."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "", token)[:80]
    st.html(_FOLLOW % safe, unsafe_allow_javascript=True)
