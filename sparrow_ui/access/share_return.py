"""A share link that asks for sign-in opens again once the visitor has signed in.

Streamlit's ``st.login`` always comes back to the app's base URL, so the link's ``?share=TOKEN`` would be
lost on the way through the provider. The Sign in screen of such a link keeps the token in the tab's
``sessionStorage`` (this tab only, gone when it closes); the first page a signed-in visitor opens takes it
back out, once, and reopens the link. A token older than ``MAX_AGE_S`` is dropped, unused.
"""

from __future__ import annotations

import json
import re

import streamlit as st

MAX_AGE_S = 15 * 60
"""How long a sign-in may take before the link is forgotten."""
_KEY = "sparrow.share"
_CHECKED = "_share_return_checked"
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,100}$")
"""The shape of a share token (as the store checks it); anything else is never written into the page."""

_REMEMBER = """<script>
try { sessionStorage.setItem(%(key)s, JSON.stringify({token: %(token)s, at: Date.now()})); } catch (e) {}
</script>"""
_RETURN = """<script>
(function () {
  let saved = null;
  try {
    saved = JSON.parse(sessionStorage.getItem(%(key)s) || "null");
    sessionStorage.removeItem(%(key)s);
  } catch (e) { return; }
  if (!saved || !/^[A-Za-z0-9_-]{20,100}$/.test(saved.token || "") || !(Date.now() - saved.at < %(max_ms)d)) return;
  const url = new URL(window.location.href);
  url.search = "";
  url.searchParams.set("share", saved.token);
  window.location.replace(url.toString());
})();
</script>"""


def remember_share(token: str) -> None:
    """Keep ``token`` in this tab while its visitor signs in (drawn on the Sign in screen; takes no space)."""
    if _TOKEN.match(token):
        st.html(_REMEMBER % {"key": json.dumps(_KEY), "token": json.dumps(token)}, unsafe_allow_javascript=True)


def return_to_share() -> None:
    """Reopen the share link this tab kept before signing in, if any (looked at once per browser session).

    The slot is drawn on every run, filled only on the first: an element that came and went would shift the
    page's later elements, and Streamlit would then close an open popover (the Share menu) at the next click.
    """
    slot = st.empty()
    if st.session_state.get(_CHECKED):
        return
    st.session_state[_CHECKED] = True
    slot.html(_RETURN % {"key": json.dumps(_KEY), "max_ms": MAX_AGE_S * 1000}, unsafe_allow_javascript=True)
