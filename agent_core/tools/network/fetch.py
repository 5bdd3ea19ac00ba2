"""fetch_url: read a web page as plain text, size- and time-limited, refusing non-public addresses (SSRF guard).

The guard resolves the host and refuses the request unless EVERY address is public (no loopback, private,
link-local such as cloud metadata at 169.254.169.254, multicast, reserved or unspecified addresses, also when
hidden in IPv6 forms such as ::ffff:127.0.0.1); it connects to exactly the address it checked and checks again
on every redirect. ``allow_private=True`` (or SPARROW_FETCH_ALLOW_PRIVATE=1) turns it off; ``allowed_networks``
(SPARROW_FETCH_ALLOWED_NETWORKS="10.1.0.0/16,...") opens only the listed ranges.

HTML becomes text with the standard library's ``html.parser``: scripts, styles, navigation and the like are
dropped, headings, list items and paragraphs keep their shape. It needs no dependency and is enough for a
model to read a page; extracting "just the article" (trafilatura, readability) would add lxml and a tree of
packages for a modest gain, and html2text is GPL-licensed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from html.parser import HTMLParser
from urllib.parse import urlsplit

from agent_core.env_settings import env_settings
from agent_core.tools.network.http import (
    DEFAULT_TIMEOUT,
    AddressPolicy,
    HttpClient,
    HttpError,
    Response,
    env_timeout,
    known_codec,
    tool_error,
)
from agent_core.tools.tool import Tool, ToolError, ToolOutput

DEFAULT_MAX_BYTES = 1_000_000
"""Bytes of a page read at most; the rest is never downloaded."""
DEFAULT_MAX_CHARS = 20_000
"""Characters of extracted text returned at most (the tool runner may cut the observation further)."""

_HTML_TYPES = {"text/html", "application/xhtml+xml"}
_TEXT_TYPES = {"application/json", "application/xml", "application/javascript", "application/x-yaml"}


class Fetcher:
    """Fetches pages for fetch_url through an SSRF-guarded client with a byte limit and a deadline."""

    def __init__(
        self,
        *,
        allow_private: bool = False,
        allowed_networks: Iterable[str] = (),
        timeout: float = DEFAULT_TIMEOUT,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> None:
        self.policy = AddressPolicy.build(allow_private=allow_private, allowed_networks=allowed_networks)
        self.max_chars = max_chars
        self.client = HttpClient(timeout=timeout, max_bytes=max_bytes, policy=self.policy)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Fetcher:
        """Settings from SPARROW_FETCH_ALLOW_PRIVATE, SPARROW_FETCH_ALLOWED_NETWORKS, SPARROW_FETCH_MAX_BYTES."""
        env = env_settings(environ)
        return cls(
            allow_private=env.sparrow_fetch_allow_private,
            allowed_networks=env.sparrow_fetch_allowed_networks,
            timeout=env_timeout(environ),
            max_bytes=env.sparrow_fetch_max_bytes or DEFAULT_MAX_BYTES,
        )

    def fetch(self, url: str) -> ToolOutput:
        """The readable text of ``url`` for the model, and the fetch facts (final URL, type, sizes) as details."""
        try:
            response = self.client.get(url, headers={"Accept": "text/html,text/plain;q=0.9,*/*;q=0.5"})
        except HttpError as exc:
            raise tool_error("fetch_url", exc) from None
        title, text = readable(response)
        shown = text[: self.max_chars].rstrip()
        notes = []
        if response.truncated:
            notes.append(f"[page cut at {self.client.max_bytes:,} bytes]")
        if len(text) > len(shown):
            notes.append(f"[text cut at {self.max_chars:,} of {len(text):,} characters]")
        header = [f"Title: {title}"] if title else []
        content = "\n".join([*header, f"URL: {response.url}", "", shown, *notes]).strip()
        details = {
            "url": url,
            "final_url": response.url,
            "status": response.status,
            "content_type": response.content_type,
            "title": title,
            "bytes": len(response.body),
            "truncated": response.truncated or len(text) > len(shown),
            "redirects": list(response.redirects),
        }
        return ToolOutput(content, details)


def make_fetch_url(fetcher: Fetcher | None = None, *, name: str = "fetch_url", needs_approval: bool = True) -> Tool:
    """A fetch_url tool using ``fetcher``, or else one configured from the environment at each call."""

    def fetch_url(url: str) -> ToolOutput:
        """Fetch a web page (http or https) and return its readable text; only public internet addresses.

        Args:
            url: The full address of the page, e.g. "https://en.wikipedia.org/wiki/Sparrow".
        """
        return (fetcher or _fetcher_from_env()).fetch(url)

    return Tool(fetch_url, name=name, needs_approval=needs_approval)


def readable(response: Response) -> tuple[str, str]:
    """(title, text) of a response: HTML converted to text, plain text passed through, others refused."""
    kind = response.content_type
    head = response.body.lstrip()[:1]
    if kind in _HTML_TYPES or (not kind and head == b"<"):
        return html_to_text(response.body.decode(_html_charset(response), errors="replace"))
    if kind.startswith("text/") or kind in _TEXT_TYPES or kind.endswith(("+json", "+xml")):
        return "", response.text().strip()
    if not kind and _is_utf8(response.body):
        return "", response.body.decode("utf-8").strip()
    host = urlsplit(response.url).hostname
    raise ToolError(
        f"fetch_url: {host} sent {kind or 'binary data'}, not a text page; only HTML and plain-text pages can be read"
    )


def _html_charset(response: Response) -> str:
    if response.charset:
        return response.charset
    match = re.search(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", response.body[:4096], re.I)
    return (known_codec(match.group(1).decode("ascii")) if match else None) or "utf-8"


def _is_utf8(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return b"\x00" not in body


def html_to_text(html: str) -> tuple[str, str]:
    """(title, readable text) of an HTML document: no scripts, styles or navigation; headings and lists kept."""
    parser = _Readable()
    parser.feed(html)
    parser.close()
    return parser.title(), parser.text()


_SKIP = {"script", "style", "noscript", "template", "svg", "math", "canvas", "iframe", "object", "head", "nav"}
_SKIP |= {"footer", "select", "button", "datalist", "audio", "video", "map"}
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
_PARAGRAPHS = {"p", "blockquote", "pre", "table", "ul", "ol", "dl", "figure", "section", "article", "main", "hr"}
_LINES = {"div", "header", "aside", "form", "fieldset", "address", "tr", "dt", "dd", "details", "summary", "caption"}
_LINES |= {"figcaption", "thead", "tbody", "tfoot", "br"}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_PRE_SPACE = "\ue000"
"""Stands for a space inside <pre> until whitespace is normalised, so code keeps its indentation."""


class _Readable(HTMLParser):
    """Collects the visible text of a page with light structure (# headings, - list items, blank lines)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skipping: list[str] = []
        self.title_parts: list[str] = []
        self.first_heading: list[str] = []
        self.in_title = False
        self.in_h1 = False
        self.pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":
            self.skipping.clear()  # a missing </head> must not hide the whole page
        if tag == "title":
            self.in_title = True
        elif tag in _SKIP and tag not in _VOID:
            self.skipping.append(tag)
        elif not self.skipping:
            self._open(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self.skipping and tag not in _SKIP:
            self._open(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        elif self.skipping:
            if tag in self.skipping:
                del self.skipping[len(self.skipping) - 1 - self.skipping[::-1].index(tag) :]
        elif tag in _HEADINGS or tag in _PARAGRAPHS:
            self.out.append("\n\n")
            self.in_h1 = self.in_h1 and tag != "h1"
            self.pre = max(0, self.pre - (tag == "pre"))
        elif tag in _LINES:
            self.out.append("\n")
        elif tag in ("td", "th"):
            self.out.append(" ")

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title_parts.append(data)
        elif not self.skipping:
            text = data.replace("\t", "    ").replace(" ", _PRE_SPACE) if self.pre else re.sub(r"\s+", " ", data)
            self.out.append(text)
            if self.in_h1:
                self.first_heading.append(data)

    def _open(self, tag: str) -> None:
        if tag in _HEADINGS:
            self.out.append(f"\n\n{'#' * int(tag[1])} ")
            self.in_h1 = tag == "h1" and not self.first_heading
        elif tag == "li":
            self.out.append("\n- ")
        elif tag in _PARAGRAPHS:
            self.out.append("\n\n")
            self.pre += tag == "pre"
        elif tag in _LINES:
            self.out.append("\n")
        elif tag in ("td", "th"):
            self.out.append(" | ")

    def title(self) -> str:
        """The <title>, or else the first <h1>."""
        return " ".join("".join(self.title_parts or self.first_heading).split())

    def text(self) -> str:
        """The collected text with spaces tidied and at most one blank line in a row."""
        lines = [
            " ".join(line.split()) if _PRE_SPACE not in line else line.rstrip()
            for line in "".join(self.out).split("\n")
        ]
        text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
        return text.replace(_PRE_SPACE, " ")


def _fetcher_from_env() -> Fetcher:
    try:
        return Fetcher.from_env()
    except ValueError as exc:
        raise ToolError(f"fetch_url unavailable: {exc}") from None


fetch_url = make_fetch_url()
"""The default tool: SSRF guard on (unless SPARROW_FETCH_ALLOW_PRIVATE=1), needs approval."""
