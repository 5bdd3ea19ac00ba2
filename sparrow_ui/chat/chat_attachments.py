"""Files attached in the chat box: read when the question is sent, handed to its run, shown as thumbnails.

``st.chat_input(accept_file="multiple")`` gives the question and its files; they become attachments (refused,
with the reason, before anything is sent) and wait in this tab's state until the run starts. Thumbnails are
drawn from the bytes the run stored (``RunStarted.attachments``): the browser never fetches an image.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

import streamlit as st

from agent_core.engine.attachments import ACCEPTED, Attachment, AttachmentError, attach, check_attachments
from sparrow_ui.translations.i18n import t

_PENDING = "_pending_attachments"
FILE_TYPES = [suffix.lstrip(".") for suffix in ACCEPTED]
"""What the chat box's file picker offers."""


def chat_box(label: str, *, disabled: bool, key: str) -> Any:
    """The chat input, accepting files of the kinds Sparrow can attach."""
    return st.chat_input(label, disabled=disabled, key=key, accept_file="multiple", file_type=FILE_TYPES)


def question_of(value: Any, session_id: str | None, model: str) -> str | None:
    """The question's text; its files are kept for the run. None (and the reason shown) when a file is refused."""
    if value is None or isinstance(value, str):
        return value
    try:
        files = [attach(f.name, f.getvalue()) for f in value.files]
        check_attachments(files, model)
    except AttachmentError as exc:
        st.error(t("attach.refused", reason=str(exc)), icon=":material/attach_file_off:")
        return None
    st.session_state[_PENDING] = (session_id, files)
    return str(value.text or "") or (t("attach.default_question") if files else "")


def pending(session_id: str) -> tuple[Attachment, ...]:
    """The files waiting for the next run of ``session_id`` (taken: a later run does not get them again)."""
    entry = st.session_state.pop(_PENDING, None)
    if not entry or entry[0] not in (None, session_id):
        return ()
    return tuple(entry[1])


def thumbnails(attachments: Sequence[dict[str, str]]) -> None:
    """Small images and file names under the question, from the stored bytes."""
    if not attachments:
        return
    images = [a for a in attachments if a.get("mime", "").startswith("image/") and a.get("data")]
    if images:
        st.image([base64.b64decode(a["data"]) for a in images], width=96, caption=[a["name"] for a in images])
    names = [a["name"] for a in attachments if not a.get("mime", "").startswith("image/")]
    if names:
        st.caption(t("attach.files", names=", ".join(names)))
