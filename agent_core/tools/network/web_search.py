"""The web_search tool: any SearchProvider behind it; the model reads a short numbered list, the UI gets links."""

from __future__ import annotations

from agent_core.tools.network.http import HttpError, tool_error
from agent_core.tools.network.search_providers import SearchError, SearchProvider, SearchResult, provider_from_env
from agent_core.tools.tool import Tool, ToolError, ToolOutput

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
"""The default tool: provider and base URL from the environment (see search_providers)."""
