"""The sign-in screens: the gate every page passes, the Sign in page, and the account box with Sign out."""

from __future__ import annotations

from typing import Any

import streamlit as st

from agent_core.store import SessionStore, ShareLinkInvalid
from sparrow_ui.access import auth
from sparrow_ui.access.auth import (
    auth_configured,
    current_actor,
    email_of,
    forget_share,
    leave_shared_view,
    share_grant,
    share_token,
)
from sparrow_ui.access.share_return import remember_share, return_to_share
from sparrow_ui.translations.i18n import t

_ADOPTED = "_adopted_owner"


def gate(store: SessionStore) -> None:
    """Stop the page unless its visitor may see it: the Sign in screen, or a refused share link."""
    claims = auth.user_claims()  # through the module: the one seam tests replace
    try:
        grant = share_grant(store)
    except ShareLinkInvalid:
        st.error(t("share.invalid"), icon=":material/link_off:")
        _leave_button()
        st.stop()
    if grant is not None and not grant.allow_anonymous and auth_configured() and claims is None:
        remember_share(share_token() or "")  # st.login comes back without the link: reopen it after sign-in
        sign_in_screen(t("auth.shared_body"))
    if grant is None and auth_configured() and claims is None:
        sign_in_screen(t("auth.body"))
    if grant is not None:
        st.info(t("share.read_only"), icon=":material/visibility:")
        if claims is not None:  # a signed-in viewer has work of their own to go back to
            _leave_button()
    if claims is not None:
        if grant is None:
            return_to_share()
        adopt_once(store, claims)
        account(claims, current_actor(store).is_admin)


def adopt_once(store: SessionStore, claims: dict[str, Any]) -> None:
    """Once per tab: data the user owned before owners had issuers becomes theirs under ``ISSUER#SUBJECT``.

    Only for ``[auth]``'s own provider: the only one there was, so a bare subject is its user's.
    """
    actor = auth.actor_of(claims)
    if st.session_state.get(_ADOPTED) == actor.owner or claims.get("provider", auth.DEFAULT_PROVIDER) != "default":
        return
    if claims.get("iss"):
        store.acting_as(actor).sessions.adopt_owner(str(claims["sub"]))
    st.session_state[_ADOPTED] = actor.owner


def sign_in_screen(body: str) -> None:
    """The page shown to visitors who are not signed in; ends the script run."""
    st.header(t("auth.title"))
    st.write(body)
    for name in auth.providers():
        label = t("auth.sign_in") if name == auth.DEFAULT_PROVIDER else t("auth.sign_in_with", name=name.title())
        key = "sign_in" if name == auth.DEFAULT_PROVIDER else f"sign_in_{name}"
        if st.button(label, type="primary", icon=":material/login:", key=key):
            st.login() if name == auth.DEFAULT_PROVIDER else st.login(name)
    st.stop()


def account(claims: dict[str, Any], is_admin: bool) -> None:
    """Who is signed in, and the Sign out button, at the top of the sidebar."""
    with st.sidebar:
        who = email_of(claims) or str(claims.get("sub") or "?")
        role = f" · {t('auth.admin')}" if is_admin else ""
        st.caption(f":material/account_circle: {t('auth.signed_in_as', who=who)}{role}")
        if st.button(t("auth.sign_out"), icon=":material/logout:", key="sign_out", width="stretch"):
            forget_share()
            st.logout()


def _leave_button() -> None:
    if st.button(t("share.leave"), key="share_leave"):
        leave_shared_view()
