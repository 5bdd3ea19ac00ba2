"""Who is using the app: Streamlit's OpenID Connect sign-in (``st.login`` / ``st.user``), admins, share links.

Without an ``[auth]`` section in ``.streamlit/secrets.toml`` nobody signs in and the user is the local admin,
exactly as before. With it, every page asks for sign-in first (``gate``), the store acts for the signed-in
user, and the admins listed in ``[sparrow] admins`` (or ``$SPARROW_ADMINS``) see everything. A ``?share=TOKEN``
URL opens one session read-only, for anyone if its owner allowed that, else for any signed-in account.

``user_claims()`` is the one place that reads ``st.user``: tests replace it (AppTest cannot run ``st.login``).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from agent_core.store import LOCAL_ADMIN, Actor, SessionStore, ShareGrant, ShareLinkInvalid
from agent_core.store.access import admins, signed_in
from sparrow_ui.i18n import t

SHARE_PARAM = "share"
"""The query parameter holding a share link's token."""
_SHARE_COPY = "_share_param"
NOBODY = Actor.viewer("-")
"""Who a page acts for before the gate let anyone in: it sees no session at all."""


def auth_configured() -> bool:
    """True when ``.streamlit/secrets.toml`` has an ``[auth]`` section: sign-in is then required."""
    try:
        return "auth" in st.secrets
    except Exception:  # no secrets file at all: no sign-in
        return False


def user_claims() -> dict[str, Any] | None:
    """The signed-in user's identity claims (``sub``, ``email``...), or None when nobody is signed in."""
    if not auth_configured() or not st.user.is_logged_in:
        return None
    return dict(st.user.to_dict())


def configured_admins() -> frozenset[str]:
    """Admin emails and subjects: ``[sparrow] admins`` in the secrets, plus ``$SPARROW_ADMINS``."""
    try:
        listed = st.secrets.get("sparrow", {}).get("admins")
    except Exception:  # no secrets file
        listed = None
    return admins(listed)


def share_token() -> str | None:
    """The share token of this tab (the URL's ``?share=``, kept across page changes, which drop it)."""
    if SHARE_PARAM not in st.query_params and st.session_state.get(_SHARE_COPY):
        st.query_params[SHARE_PARAM] = st.session_state[_SHARE_COPY]
    token = st.query_params.get(SHARE_PARAM) or None
    st.session_state[_SHARE_COPY] = token
    return token


def share_grant(store: SessionStore) -> ShareGrant | None:
    """What this tab's share link opens (None: no link); raises ShareLinkInvalid."""
    token = share_token()
    return store.open_share_link(token) if token else None


def current_actor(store: SessionStore) -> Actor:
    """Who this tab acts for: a share link's viewer, the signed-in user, or the local admin (no sign-in)."""
    try:
        grant = share_grant(store)
    except ShareLinkInvalid:
        return NOBODY
    claims = user_claims()
    if grant is not None:
        return grant.actor() if grant.allow_anonymous or claims or not auth_configured() else NOBODY
    if not auth_configured():
        return LOCAL_ADMIN
    if claims is None or not claims.get("sub"):
        return NOBODY
    return signed_in(str(claims["sub"]), _email(claims), configured_admins())


def read_only() -> bool:
    """True in a tab opened by a share link: no settings, no run controls, nothing else to open."""
    return share_token() is not None


def gate(store: SessionStore) -> None:
    """Stop the page unless its visitor may see it: the Sign in screen, or a refused share link."""
    claims = user_claims()
    try:
        grant = share_grant(store)
    except ShareLinkInvalid:
        st.error(t("share.invalid"), icon=":material/link_off:")
        _leave_button()
        st.stop()
    if grant is not None and not grant.allow_anonymous and auth_configured() and claims is None:
        sign_in_screen(t("auth.shared_body"))
    if grant is None and auth_configured() and claims is None:
        sign_in_screen(t("auth.body"))
    if grant is not None:
        st.info(t("share.read_only"), icon=":material/visibility:")
    if claims is not None:
        account(claims, current_actor(store).is_admin)


def sign_in_screen(body: str) -> None:
    """The page shown to visitors who are not signed in; ends the script run."""
    st.header(t("auth.title"))
    st.write(body)
    if st.button(t("auth.sign_in"), type="primary", icon=":material/login:", key="sign_in"):
        st.login()
    st.stop()


def account(claims: dict[str, Any], is_admin: bool) -> None:
    """Who is signed in, and the Sign out button, at the top of the sidebar."""
    with st.sidebar:
        who = _email(claims) or str(claims.get("sub") or "?")
        role = f" · {t('auth.admin')}" if is_admin else ""
        st.caption(f":material/account_circle: {t('auth.signed_in_as', who=who)}{role}")
        if st.button(t("auth.sign_out"), icon=":material/logout:", key="sign_out", use_container_width=True):
            st.session_state.pop(_SHARE_COPY, None)
            st.logout()


def _leave_button() -> None:
    if st.button(t("share.leave"), key="share_leave"):
        leave_shared_view()


def leave_shared_view() -> None:
    """Forget this tab's share link and go back to the app (its sign-in, when configured)."""
    st.session_state.pop(_SHARE_COPY, None)
    st.query_params.pop(SHARE_PARAM, None)
    st.rerun()


def _email(claims: dict[str, Any]) -> str | None:
    email = claims.get("email")
    return str(email) if isinstance(email, str) and email else None
