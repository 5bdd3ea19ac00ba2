"""Request URLs for tools: http(s) only, no credentials, IDNA host names, quoted paths."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from agent_core.tools.network.http_errors import InvalidURL

_SAFE_PATH = "/%:@!$&'()*+,;=-._~"
_SAFE_QUERY = _SAFE_PATH + "?"


@dataclass(frozen=True)
class Target:
    """A parsed request URL: scheme, IDNA host, port, and the quoted path with its query."""

    url: str
    scheme: str
    host: str
    port: int
    path: str

    @property
    def origin(self) -> tuple[str, str, int]:
        """(scheme, host, port): credentials are only sent again to the same origin."""
        return self.scheme, self.host, self.port


def parse_url(url: str) -> Target:
    """Split and normalise an http(s) URL; InvalidURL explains what is wrong with it."""
    text = url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise InvalidURL(f"{url!r} is not a valid URL ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise InvalidURL(f"only http and https URLs can be fetched, not {scheme or 'a URL without scheme'}: {url!r}")
    if not parts.hostname:
        raise InvalidURL(f"{url!r} has no host name")
    if parts.username is not None or parts.password is not None:
        raise InvalidURL("URLs with a user name or password in them are not allowed")
    try:
        host = parts.hostname.encode("idna").decode("ascii") if not parts.hostname.isascii() else parts.hostname
    except UnicodeError:
        raise InvalidURL(f"{parts.hostname!r} is not a valid host name") from None
    path = quote(parts.path or "/", safe=_SAFE_PATH)
    if parts.query:
        path += "?" + quote(parts.query, safe=_SAFE_QUERY)
    return Target(text, scheme, host, port or (443 if scheme == "https" else 80), path)


def with_params(url: str, params: Mapping[str, Any] | None) -> str:
    """``url`` with ``params`` url-encoded into its query string (None values left out)."""
    if not params:
        return url
    query = urlencode({k: v for k, v in params.items() if v is not None}, doseq=True)
    return f"{url}{'&' if urlsplit(url).query else '?'}{query}"
