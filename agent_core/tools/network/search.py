"""The web_search tool and the search providers behind it: DuckDuckGo (keyless), Tavily and Brave (keyed).

The model reads a short numbered list (title, URL, a cut snippet); the UI gets every result in ``details``. A
provider is any object with a ``name`` and ``search(query, max_results) -> list[SearchResult]`` that raises
``HttpError`` (network, timeout, HTTP status, bad or unexpected JSON) or ``SearchError`` (the provider cannot
serve: missing key, bot check, quota). ``provider_from_env`` picks one: SPARROW_SEARCH_PROVIDER if set, else
Tavily when TAVILY_API_KEY is set, else Brave when BRAVE_API_KEY is set, else DuckDuckGo. Every base URL is
configurable (constructor argument or SPARROW_*_URL) so tests can point the real HTTP code at a local fake server.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

from agent_core.env_settings import EnvSettings, env_settings
from agent_core.tools.network.http import (
    DEFAULT_TIMEOUT,
    BadResponse,
    HttpClient,
    HttpError,
    HttpStatusError,
    Response,
    env_timeout,
    tool_error,
)
from agent_core.tools.tool import Tool, ToolError, ToolOutput

PROVIDER_ENV = "SPARROW_SEARCH_PROVIDER"
TAVILY_KEY_ENV = "TAVILY_API_KEY"
BRAVE_KEY_ENV = "BRAVE_API_KEY"

DUCKDUCKGO_URL = "https://html.duckduckgo.com/html/"
TAVILY_URL = "https://api.tavily.com"
BRAVE_URL = "https://api.search.brave.com"
BROWSER_AGENT = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
"""DuckDuckGo's HTML endpoint serves browsers; an unknown agent string is often sent a bot check instead."""


@dataclass(frozen=True)
class SearchResult:
    """One hit: a page title, its URL and a short snippet of text."""

    title: str
    url: str
    snippet: str = ""

    def to_dict(self) -> dict[str, str]:
        """Plain JSON-able form, as stored in ToolOutput.details."""
        return {"title": self.title, "url": self.url, "snippet": self.snippet}


class SearchError(Exception):
    """The provider cannot serve now (missing key, bot check, quota used up); the message is for the model."""


class SearchProvider(Protocol):
    """Anything that can run a web search."""

    name: str
    """Shown to the model and in the trace ("DuckDuckGo", "Tavily"...)."""

    def search(self, query: str, max_results: int) -> list[SearchResult]:
        """At most ``max_results`` hits for ``query``; raises HttpError or SearchError."""
        ...


class DuckDuckGoProvider:
    """Keyless search through DuckDuckGo's HTML endpoint (the page its no-JavaScript site uses)."""

    name = "DuckDuckGo"

    def __init__(self, *, url: str = DUCKDUCKGO_URL, timeout: float = DEFAULT_TIMEOUT, region: str = "wt-wt") -> None:
        self.url = url
        self.region = region
        self.client = HttpClient(timeout=timeout, user_agent=BROWSER_AGENT)

    def search(self, query: str, max_results: int) -> list[SearchResult]:
        """POST the query as the HTML form does and read the result blocks of the page."""
        response = self.client.post_form(self.url, {"q": query, "kl": self.region, "b": ""})
        results = parse_duckduckgo_html(response.text())
        if not results and _looks_like_bot_check(response):
            raise SearchError(
                "DuckDuckGo asked for a bot check instead of answering; try again later, "
                f"or set {TAVILY_KEY_ENV} or {BRAVE_KEY_ENV} to use a keyed provider"
            )
        return results[:max_results]


class TavilyProvider:
    """Tavily's search API (POST /search, key in an Authorization: Bearer header)."""

    name = "Tavily"

    def __init__(self, api_key: str | None, *, url: str = TAVILY_URL, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.api_key = api_key
        self.url = url.rstrip("/")
        self.client = HttpClient(timeout=timeout)

    def search(self, query: str, max_results: int) -> list[SearchResult]:
        """Ask for a basic-depth search without the generated answer or raw page contents."""
        key = _require_key(self.api_key, TAVILY_KEY_ENV, self.name)
        payload = {"query": query, "max_results": max_results, "search_depth": "basic", "include_answer": False}
        with _key_hint(TAVILY_KEY_ENV, self.name):
            response = self.client.post_json(f"{self.url}/search", payload, headers={"Authorization": f"Bearer {key}"})
        items = _list_at(response, "results", self.name)
        return _results(items, snippet_key="content")[:max_results]


class BraveProvider:
    """Brave's Search API (GET /res/v1/web/search, key in an X-Subscription-Token header)."""

    name = "Brave"

    def __init__(self, api_key: str | None, *, url: str = BRAVE_URL, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.api_key = api_key
        self.url = url.rstrip("/")
        self.client = HttpClient(timeout=timeout)

    def search(self, query: str, max_results: int) -> list[SearchResult]:
        """Ask for at most ``max_results`` web results (Brave allows up to 20 a page)."""
        key = _require_key(self.api_key, BRAVE_KEY_ENV, self.name)
        headers = {"X-Subscription-Token": key, "Accept": "application/json"}
        params = {"q": query, "count": min(max_results, 20)}
        with _key_hint(BRAVE_KEY_ENV, self.name):
            response = self.client.get(f"{self.url}/res/v1/web/search", params=params, headers=headers)
        data = response.json()
        web = data.get("web") if isinstance(data, dict) else None
        items = web.get("results", []) if isinstance(web, dict) else []
        if not isinstance(items, list):
            raise BadResponse(f"{self.name} sent an unexpected answer (web.results is not a list)")
        return _results(items, snippet_key="description")[:max_results]


PROVIDERS: dict[str, Callable[[EnvSettings, float], SearchProvider]] = {
    "duckduckgo": lambda env, t: DuckDuckGoProvider(url=env.sparrow_duckduckgo_url or DUCKDUCKGO_URL, timeout=t),
    "tavily": lambda env, t: TavilyProvider(env.tavily_api_key, url=env.sparrow_tavily_url or TAVILY_URL, timeout=t),
    "brave": lambda env, t: BraveProvider(env.brave_api_key, url=env.sparrow_brave_url or BRAVE_URL, timeout=t),
}
"""Provider name (as in SPARROW_SEARCH_PROVIDER) -> factory taking the environment's settings and the timeout."""


def provider_from_env(environ: Mapping[str, str] | None = None) -> SearchProvider:
    """The provider named by SPARROW_SEARCH_PROVIDER, else the first keyed one with a key, else DuckDuckGo."""
    env = env_settings(environ)
    name = (env.sparrow_search_provider or "").lower() or "auto"
    if name == "auto":
        name = "tavily" if env.tavily_api_key else "brave" if env.brave_api_key else "duckduckgo"
    if name not in PROVIDERS:
        raise SearchError(f"{PROVIDER_ENV}={name!r} is not a known provider; use one of: {', '.join(PROVIDERS)}")
    return PROVIDERS[name](env, env_timeout(environ))


# --- helpers -------------------------------------------------------------------------------------------------------


def _require_key(key: str | None, env_name: str, provider: str) -> str:
    if not key:
        raise SearchError(f"{provider} needs an API key: set {env_name} (or use SPARROW_SEARCH_PROVIDER=duckduckgo)")
    return key


@contextmanager
def _key_hint(env_name: str, provider: str) -> Iterator[None]:
    """Turns 401/403 answers into "check <KEY_ENV>", and 429-like answers into a quota message."""
    try:
        yield
    except HttpStatusError as exc:
        if exc.status in (401, 403):
            raise SearchError(f"{provider} refused the API key (HTTP {exc.status}); check {env_name}") from exc
        if exc.status in (429, 432, 433):
            raise SearchError(f"{provider} says the rate limit or plan quota is used up (HTTP {exc.status})") from exc
        raise


def _list_at(response: Response, key: str, provider: str) -> list[Any]:
    data = response.json()
    items = data.get(key) if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise BadResponse(f"{provider} sent an unexpected answer (no {key!r} list)")
    return items


def _results(items: list[Any], *, snippet_key: str) -> list[SearchResult]:
    results = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("url"), str) and item["url"]:
            title = strip_tags(str(item.get("title") or item["url"]))
            results.append(SearchResult(title, item["url"], strip_tags(str(item.get(snippet_key) or ""))))
    return results


def strip_tags(html: str) -> str:
    """Plain text of a small HTML fragment such as a snippet with <strong> highlights."""
    parser = _TextOnly()
    parser.feed(html)
    parser.close()
    return " ".join("".join(parser.parts).split())


class _TextOnly(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def _looks_like_bot_check(response: Response) -> bool:
    text = response.text().lower()
    return response.status == 202 or "anomaly" in text or "captcha" in text


def parse_duckduckgo_html(html: str) -> list[SearchResult]:
    """The organic results of a DuckDuckGo HTML results page (ads left out), in page order."""
    parser = _DuckDuckGoPage()
    parser.feed(html)
    parser.close()
    return parser.results


class _DuckDuckGoPage(HTMLParser):
    """Reads ``a.result__a`` (title and link) and the ``.result__snippet`` after it, for each result block."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.results: list[SearchResult] = []
        self._field: str | None = None
        self._tag = ""
        self._depth = 0
        self._text: list[str] = []
        self._url = ""
        self._awaiting_snippet = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._field is not None:
            self._depth += tag == self._tag
            return
        values = dict(attrs)
        classes = (values.get("class") or "").split()
        if "result__a" in classes:
            self._begin("title", tag)
            self._url = result_url(values.get("href") or "")
        elif "result__snippet" in classes and self._awaiting_snippet:
            self._begin("snippet", tag)

    def handle_endtag(self, tag: str) -> None:
        if self._field is None or tag != self._tag:
            return
        if self._depth:
            self._depth -= 1
            return
        text = " ".join("".join(self._text).split())
        if self._field == "title":
            self._awaiting_snippet = bool(self._url)
            if self._url:
                self.results.append(SearchResult(text or self._url, self._url))
        else:
            last = self.results[-1]
            self.results[-1] = SearchResult(last.title, last.url, text)
            self._awaiting_snippet = False
        self._field = None

    def handle_data(self, data: str) -> None:
        if self._field is not None:
            self._text.append(data)

    def _begin(self, field: str, tag: str) -> None:
        self._field, self._tag, self._depth, self._text = field, tag, 0, []


def result_url(href: str) -> str:
    """The target of a DuckDuckGo result link: unwraps /l/?uddg=..., drops ad links (/y.js), "" if unusable."""
    if href.startswith("//"):
        href = "https:" + href
    parts = urlsplit(href)
    host = (parts.hostname or "").lower()
    if host.endswith("duckduckgo.com") or not host:
        if parts.path.startswith("/l/"):
            target = parse_qs(parts.query).get("uddg", [""])[0]
            return target if urlsplit(target).scheme in ("http", "https") else ""
        return ""
    return href if parts.scheme in ("http", "https") else ""


# --- the tool ------------------------------------------------------------------------------------------------------

MAX_RESULTS = 10
TITLE_CHARS = 120
SNIPPET_CHARS = 240
"""Characters of each snippet the model sees; ``details`` keeps the full text."""


def make_web_search(
    provider: SearchProvider | None = None, *, name: str = "web_search", snippet_chars: int = SNIPPET_CHARS
) -> Tool:
    """A web_search tool using ``provider``, or else the provider the environment names at each call."""

    def web_search(query: str, max_results: int = 5) -> ToolOutput:
        """Search the web; returns the top results as title, URL and snippet.

        Args:
            query: What to search for, in plain words, e.g. "Open-Meteo forecast API parameters".
            max_results: How many results to return, from 1 to 10.
        """
        count = max(1, min(MAX_RESULTS, max_results))
        return run_search(provider or _provider_from_env(), query, count, snippet_chars=snippet_chars)

    return Tool(web_search, name=name, repeatable=True)  # fresh results may differ


def run_search(
    provider: SearchProvider, query: str, max_results: int, *, snippet_chars: int = SNIPPET_CHARS
) -> ToolOutput:
    """Search with ``provider``; failures become a ToolError the model can read and act on."""
    text = " ".join(query.split())
    if not text:
        raise ToolError("web_search: the query is empty; say what to search for")
    try:
        results = provider.search(text, max_results)
    except HttpError as exc:
        raise tool_error("web search", exc) from None
    except SearchError as exc:
        raise ToolError(f"web search unavailable: {exc}") from None
    details = {"provider": provider.name, "query": text, "results": [r.to_dict() for r in results]}
    return ToolOutput(format_results(text, results, provider.name, snippet_chars), details)


def format_results(query: str, results: list[SearchResult], provider: str, snippet_chars: int = SNIPPET_CHARS) -> str:
    """A compact numbered list: title, URL and a cut snippet per result."""
    if not results:
        return f'No web results for "{query}" ({provider}). Try other words.'
    lines = [f'Web results for "{query}" ({provider}):']
    for number, result in enumerate(results, 1):
        lines.append(f"{number}. {shorten(result.title, TITLE_CHARS)}")
        lines.append(f"   {result.url}")
        if result.snippet:
            lines.append(f"   {shorten(result.snippet, snippet_chars)}")
    return "\n".join(lines)


def shorten(text: str, limit: int) -> str:
    """``text`` on one line, cut at a word boundary near ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    if flat[len(cut)] != " " and space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.") + "…"


def _provider_from_env() -> SearchProvider:
    try:
        return provider_from_env()
    except (SearchError, ValueError) as exc:
        raise ToolError(f"web search unavailable: {exc}") from None


web_search = make_web_search()
"""The default tool: provider and base URL from the environment (see ``provider_from_env``)."""
