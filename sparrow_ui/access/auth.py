"""Who is using the app: Streamlit's OpenID Connect sign-in (``st.login`` / ``st.user``), admins, share links.

Without an ``[auth]`` section in ``.streamlit/secrets.toml`` nobody signs in and the user is the local admin,
exactly as before. With it, every page asks for sign-in first (``gate``), the store acts for the signed-in
user, and the admins listed in ``[sparrow] admins`` (or ``$SPARROW_ADMINS``) see everything. A ``?share=TOKEN``
URL opens one session read-only, for anyone if its owner allowed that, else for any signed-in account.

``user_claims()`` is the one place that reads ``st.user``: tests replace it (AppTest cannot run ``st.login``).
The screens (Sign in, the account box) are in ``sign_in``.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from agent_core.store import LOCAL_ADMIN, Actor, SessionStore, ShareGrant, ShareLinkInvalid
from agent_core.store.access import admins, signed_in
from sparrow_ui.access.page_run import once_per_page_run, secrets, secrets_section

SHARE_PARAM = "share"
"""The query parameter holding a share link's token."""
_SHARE_COPY = "_share_param"
NOBODY = Actor.viewer("-")
"""Who a page acts for before the gate let anyone in: it sees no session at all."""


def auth_configured() -> bool:
    """True when ``.streamlit/secrets.toml`` has an ``[auth]`` section: sign-in is then required."""
    return "auth" in secrets()


def user_claims() -> dict[str, Any] | None:
    """The signed-in user's identity claims (``sub``, ``email``...), or None when nobody is signed in."""
    if not auth_configured() or not st.user.is_logged_in:
        return None
    return dict(st.user.to_dict())


def configured_admins() -> frozenset[str]:
    """Admin emails and subjects: ``[sparrow] admins`` in the secrets, plus ``$SPARROW_ADMINS``."""
    return admins(secrets_section("sparrow").get("admins"))


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
    return store.shares.open(token) if token else None


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
    return actor_of(claims)


def actor_of(claims: dict[str, Any]) -> Actor:
    """The signed-in user of these claims: owner ``ISSUER#SUBJECT``, admin only by a verified email (or the key)."""
    issuer = claims.get("iss")
    return signed_in(
        str(claims["sub"]),
        email_of(claims),
        configured_admins(),
        issuer=str(issuer) if issuer else None,
        email_verified=claims.get("email_verified") in (True, "true", "True"),
    )


@once_per_page_run
def identity() -> str | None:
    """The signed-in user's owner key (None: nobody signed in, or no sign-in configured)."""
    claims = user_claims()
    return actor_of(claims).owner if claims and claims.get("sub") else None


DEFAULT_PROVIDER = "default"
"""The provider name Streamlit gives ``[auth]``'s own settings (``st.login()`` without a name)."""


def providers() -> list[str]:
    """The providers users may sign in with: ``default`` when ``[auth]`` names one itself, then ``[auth.NAME]``."""
    if "auth" not in secrets():
        return []
    section = secrets_section("auth")
    named = [name for name, value in section.items() if hasattr(value, "keys")]
    own = "client_id" in section or "server_metadata_url" in section or not named
    return [DEFAULT_PROVIDER] * own + named


def read_only() -> bool:
    """True in a tab opened by a share link: no settings, no run controls, nothing else to open."""
    return share_token() is not None


def forget_share() -> None:
    """Forget this tab's copy of its share link (at sign-out)."""
    st.session_state.pop(_SHARE_COPY, None)


def leave_shared_view() -> None:
    """Forget this tab's share link and go back to the app (its sign-in, when configured)."""
    forget_share()
    st.query_params.pop(SHARE_PARAM, None)
    st.rerun()


def email_of(claims: dict[str, Any]) -> str | None:
    """The email claim, if it is a non-empty string."""
    email = claims.get("email")
    return str(email) if isinstance(email, str) and email else None
