"""Keep secrets out of storage: scrub configuration, and redact known secret values from stored text.

The store never receives an API key on purpose (``SessionConfig`` has no field for one). This module is
the second line of defence: secret-looking settings and URL parts are dropped, and any known secret
value that still turns up in an event (say, a provider echoing the key in an error) is replaced.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "[REDACTED]"
MIN_SECRET_CHARS = 8
"""Shorter values are not redacted: replacing every "abc" in a session would corrupt it."""

_SECRET_NAME = re.compile(
    r"(?:^|[_\-.])(?:api[_\-]?key|apikey|key|token|secret|password|passwd|pwd|auth|authorization"
    r"|credentials?|sig|signature|bearer)(?:$|[_\-.])",
    re.IGNORECASE,
)


def is_secret_name(name: str) -> bool:
    """True for names such as ``api_key``, ``OPENAI_API_KEY``, ``token`` or ``password``."""
    return bool(_SECRET_NAME.search(name))


def scrub_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``settings`` without secret-named keys, at any depth."""
    return {str(k): _scrub(v) for k, v in settings.items() if not is_secret_name(str(k))}


def _scrub(value: Any) -> Any:
    if isinstance(value, Mapping):
        return scrub_settings(value)
    if isinstance(value, (list, tuple)):
        return [_scrub(v) for v in value]
    return value


def scrub_url(url: str | None) -> str | None:
    """``url`` without user:password and without secret-named query parameters."""
    if not url:
        return url
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    kept = [(k, v) for k, v in pairs if not is_secret_name(k)]
    query = parts.query if len(kept) == len(pairs) else urlencode(kept)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


class Redactor:
    """Replaces known secret values (as written, and as escaped inside JSON) with ``[REDACTED]``."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        values = {s for s in secrets if s and len(s) >= MIN_SECRET_CHARS}
        escaped = {json.dumps(s, ensure_ascii=False)[1:-1] for s in values}
        self.values = sorted(values | escaped, key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self.values)

    def __call__(self, text: str) -> str:
        """``text`` with every known secret replaced."""
        for value in self.values:
            if value in text:
                text = text.replace(value, REDACTED)
        return text
