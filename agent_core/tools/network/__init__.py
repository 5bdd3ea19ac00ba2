"""The tools that reach the world, built from one settings object: web_search, get_weather and fetch_url.

Each lives in its own module (``search``, ``weather``, ``fetch``) over the guarded client of ``http``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from agent_core.tools.network.fetch import Fetcher, make_fetch_url
from agent_core.tools.network.search import SearchProvider, make_web_search, provider_from_env
from agent_core.tools.network.weather import OpenMeteo, make_get_weather
from agent_core.tools.tool import Tool


@dataclass(frozen=True)
class WebSettings:
    """How the web tools reach their services; ``from_env`` reads every SPARROW_* / *_API_KEY variable."""

    search: SearchProvider
    """The web_search provider (DuckDuckGo, Tavily, Brave, or your own)."""
    weather: OpenMeteo
    """Open-Meteo client with its base URLs."""
    fetch: Fetcher
    """fetch_url's SSRF policy and limits."""
    fetch_needs_approval: bool = True
    """Ask the user before each fetch_url call."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> WebSettings:
        """Settings from the environment; ValueError (or SearchError) names a bad variable."""
        return cls(
            search=provider_from_env(environ),
            weather=OpenMeteo.from_env(environ),
            fetch=Fetcher.from_env(environ),
        )


def web_tools(settings: WebSettings | None = None) -> list[Tool]:
    """web_search, get_weather and fetch_url configured by ``settings`` (default: from the environment)."""
    chosen = settings or WebSettings.from_env()
    return [
        make_web_search(chosen.search),
        make_get_weather(chosen.weather),
        make_fetch_url(chosen.fetch, needs_approval=chosen.fetch_needs_approval),
    ]
