"""Files attached to a question: images sent as content parts, text files (and PDFs' text) as context.

An attachment is kept whole in the run's ``RunStarted`` event (images as base64, text as text), so it is
stored with the session and travels in the session file; the model's request carries it too, so the trace's
exact messages and every export show what the model was given. Nothing is ever fetched from a URL: images
are inlined as ``data:`` URLs. Sizes are bounded, and a model known to take no images is refused before
anything is sent.
"""

from __future__ import annotations

import base64
import importlib
import io
import json
import mimetypes
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_IMAGE_BYTES = 4 * 1024 * 1024
"""Largest image accepted (OpenAI's limit is 20 MB; a session file must stay small enough to move around)."""
MAX_TEXT_CHARS = 100_000
"""Longest text (or PDF text) accepted as context."""
MAX_ATTACHMENTS = 8
"""Files per question at most."""
IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
TEXT_TYPES = {".txt": "text/plain", ".md": "text/markdown", ".csv": "text/csv", ".json": "application/json"}
PDF = {".pdf": "application/pdf"}
ACCEPTED = (*IMAGE_TYPES, *TEXT_TYPES, *PDF)
"""File name extensions that can be attached."""
_TEXT_ONLY = ("deepseek-", "gpt-3.5", "o1-mini", "o3-mini", "moonshot-v1-", "qwen-plus", "qwen-max", "qwen-turbo")
"""Model names known to take no images (their APIs refuse image parts)."""


class AttachmentError(ValueError):
    """A file cannot be attached; the message names the file and why."""


@dataclass(frozen=True)
class Attachment:
    """One attached file: an image (``data`` is base64) or text (``text`` holds it, a PDF's extracted text)."""

    name: str
    """The file's name, as the user gave it."""
    mime: str
    """``image/png``, ``text/csv``, ``application/pdf``…"""
    data: str = ""
    """An image's bytes, base64-encoded; empty for text."""
    text: str = ""
    """A text file's content or a PDF's text; empty for an image."""

    @property
    def is_image(self) -> bool:
        """True for an image (sent as an image part)."""
        return self.mime.startswith("image/")

    def to_dict(self) -> dict[str, str]:
        """A JSON-ready dict (as stored in ``RunStarted.attachments``)."""
        fields = {"name": self.name, "mime": self.mime, "data": self.data, "text": self.text}
        return {k: v for k, v in fields.items() if v or k in ("name", "mime")}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Attachment:
        """Back from ``to_dict``."""
        return cls(str(data["name"]), str(data["mime"]), str(data.get("data", "")), str(data.get("text", "")))


def attach(name: str, content: bytes) -> Attachment:
    """An attachment from a file's name and bytes; AttachmentError when its type or size is not accepted."""
    suffix = Path(name).suffix.lower()
    if suffix in IMAGE_TYPES:
        if len(content) > MAX_IMAGE_BYTES:
            raise AttachmentError(f"{name}: the image is {len(content):,} bytes; the limit is {MAX_IMAGE_BYTES:,}")
        return Attachment(name, IMAGE_TYPES[suffix], data=base64.b64encode(content).decode("ascii"))
    if suffix in TEXT_TYPES:
        text = _decoded(name, content)
        if suffix == ".json":
            _check_json(name, text)
        return Attachment(name, TEXT_TYPES[suffix], text=_bounded(name, text))
    if suffix in PDF:
        return Attachment(name, PDF[suffix], text=_bounded(name, pdf_text(name, content)))
    kinds = ", ".join(ACCEPTED)
    raise AttachmentError(f"{name}: files of this type cannot be attached (accepted: {kinds})")


def attach_path(path: str | Path) -> Attachment:
    """An attachment read from a file on disk."""
    where = Path(path)
    try:
        return attach(where.name, where.read_bytes())
    except OSError as exc:
        raise AttachmentError(f"{where}: cannot read it ({exc.strerror or exc})") from None


def pdf_text(name: str, content: bytes) -> str:
    """The text of a PDF's pages (pypdf), pages separated by blank lines."""
    pypdf = importlib.import_module("pypdf")  # 0.3 s to import: only a PDF needs it
    try:
        pages = [page.extract_text() or "" for page in pypdf.PdfReader(io.BytesIO(content)).pages]
    except (pypdf.errors.PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise AttachmentError(f"{name}: not a readable PDF ({exc})") from None
    text = "\n\n".join(p.strip() for p in pages if p.strip())
    if not text:
        raise AttachmentError(f"{name}: the PDF has no text to read (a scan? attach its pages as images)")
    return text


def check_attachments(attachments: Sequence[Attachment], model: str) -> None:
    """Refuse, before anything is sent, too many files or images for a model known to take none."""
    if len(attachments) > MAX_ATTACHMENTS:
        raise AttachmentError(f"{len(attachments)} files attached; at most {MAX_ATTACHMENTS} per question")
    images = [a.name for a in attachments if a.is_image]
    if images and takes_no_images(model):
        raise AttachmentError(
            f"the model {model} takes no images ({', '.join(images)}): choose a vision model "
            "(gpt-4o, gpt-4.1, qwen-vl, llava…) or attach text instead"
        )


def takes_no_images(model: str) -> bool:
    """True for a model known to refuse image parts."""
    name = model.strip().lower()
    return name.startswith(_TEXT_ONLY) and "vl" not in name


def user_content(question: str, attachments: Iterable[Attachment]) -> str | list[dict[str, Any]]:
    """The user message's content: the question alone, or text files as context and images as parts."""
    files = list(attachments)
    if not files:
        return question
    context = [f'<file name="{a.name}" type="{a.mime}">\n{a.text}\n</file>' for a in files if not a.is_image]
    text = "\n\n".join([*context, question]) if context else question
    images = [a for a in files if a.is_image]
    if not images:
        return text
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
    parts += [{"type": "image_url", "image_url": {"url": f"data:{a.mime};base64,{a.data}"}} for a in images]
    return parts


def _decoded(name: str, content: bytes) -> str:
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise AttachmentError(f"{name}: not UTF-8 text") from None


def _check_json(name: str, text: str) -> None:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise AttachmentError(f"{name}: not valid JSON ({exc.msg}, line {exc.lineno})") from None


def _bounded(name: str, text: str) -> str:
    if len(text) > MAX_TEXT_CHARS:
        raise AttachmentError(f"{name}: {len(text):,} characters; the limit is {MAX_TEXT_CHARS:,}")
    return text


def guess_type(name: str) -> str:
    """The MIME type Sparrow gives a file name (for the UI's uploader)."""
    suffix = Path(name).suffix.lower()
    return {**IMAGE_TYPES, **TEXT_TYPES, **PDF}.get(suffix) or mimetypes.guess_type(name)[0] or ""
