"""Owners and share links on the pages: who owns a session, claiming unowned data, and the Share menu."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

import streamlit as st

from agent_core.formatting import format_timestamp
from agent_core.longterm.memory import MemoryStore
from agent_core.store import SessionInfo, SessionStore, ShareLinkInfo
from sparrow_ui.access.auth import SHARE_PARAM, auth_configured
from sparrow_ui.translations.i18n import t


def owner_note(store: SessionStore, info: SessionInfo) -> None:
    """For admins of a deployment with sign-in: whose session this is, and a Claim button if it has no owner."""
    actor = store.actor
    if not (auth_configured() and actor.is_admin):
        return
    st.caption(f":material/person: {t('owner.label', who=info.owner) if info.owner else t('owner.none')}")
    if info.owner is None and actor.owner is not None and st.button(t("owner.claim"), key=f"claim_{info.id}"):
        store.sessions.claim(info.id)
        st.toast(t("owner.claimed"))
        st.rerun()


def claim_memories(memories: MemoryStore) -> None:
    """For a signed-in admin: a button that makes the memories saved without sign-in theirs."""
    if not (auth_configured() and memories.actor.is_admin and memories.owner is not None):
        return
    count = memories.unowned_count()
    if count and st.button(t("owner.claim_memories", count=count), key="claim_memories"):
        memories.claim_unowned()
        st.rerun()


def share_menu(store: SessionStore, info: SessionInfo) -> None:
    """The Share popover: make a read-only link (whole session or a snapshot), see and revoke the links."""
    with st.popover(t("share.button"), icon=":material/share:"):
        snapshots = {s.id: s.name for s in store.snapshots.list(info.id)}
        snapshot = st.selectbox(
            t("share.snapshot"),
            [None, *snapshots],
            format_func=lambda s: snapshots[s] if s else t("share.whole"),
            key=f"share_snapshot_{info.id}",
        )
        anonymous = st.checkbox(t("share.anonymous"), key=f"share_anonymous_{info.id}")
        days = st.number_input(t("share.days"), 0, 366, 0, key=f"share_days_{info.id}")
        if st.button(t("share.create"), key=f"share_create_{info.id}", type="primary"):
            token, _ = store.shares.create(
                info.id, snapshot_id=snapshot, expires_in_days=days or None, allow_anonymous=anonymous
            )
            st.caption(t("share.created"))
            st.code(share_url(token), language=None)
        links = store.shares.list(info.id)
        if links:
            st.markdown(f"**{t('share.links')}**")
        for link in links:
            _link_row(store, link)


def share_url(token: str) -> str:
    """The app's address with ``?share=TOKEN``."""
    parts = urlsplit(getattr(st.context, "url", None) or "")  # st.context.url: Streamlit 1.45+
    origin = f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""
    return f"{origin}/?{SHARE_PARAM}={quote(token)}"


def _link_row(store: SessionStore, link: ShareLinkInfo) -> None:
    expires = t("share.expires", when=format_timestamp(link.expires_at)) if link.expires_at else t("share.no_expiry")
    who = t("share.for_anyone") if link.allow_anonymous else t("share.for_signed_in")
    text, button = st.columns([4, 1], vertical_alignment="center")
    text.caption(f"`{link.id}` · {t(f'share.state.{link.state}')} · {expires} · {who}")
    if link.active and button.button(t("share.revoke"), key=f"revoke_{link.id}"):
        store.shares.revoke(link.id)
        st.rerun()
