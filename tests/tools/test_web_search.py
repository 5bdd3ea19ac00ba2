"""web_search with each provider's real HTTP code pointed at a local fake of its service."""

from __future__ import annotations

import time

import pytest

from agent_core.tools.network.search import (
    BraveProvider,
    DuckDuckGoProvider,
    SearchError,
    SearchResult,
    TavilyProvider,
    format_results,
    make_web_search,
    parse_duckduckgo_html,
    provider_from_env,
    result_url,
    shorten,
    web_search,
)
from agent_core.tools.runner import CallRequest, ToolRunner
from agent_core.tools.tool import ToolError, ToolSet
from tests.tools.conftest import FakeWeb, Reply

DDG_PAGE = """<!DOCTYPE html><html><body><div id="links" class="results">
<div class="result results_links results_links_deep result--ad">
  <div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a"
      href="https://duckduckgo.com/y.js?ad_domain=ads.example&amp;u3=x">Buy <b>sparrows</b> now</a></h2>
    <a class="result__snippet" href="https://duckduckgo.com/y.js?u3=x">Cheap birds.</a>
  </div>
</div>
<div class="result results_links results_links_deep web-result ">
  <div class="links_main links_deep result__body">
    <h2 class="result__title">
      <a rel="nofollow" class="result__a"
        href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fen.wikipedia.org%2Fwiki%2FHouse_sparrow&amp;rut=abc">House
        sparrow - <b>Wikipedia</b></a>
    </h2>
    <div class="result__extras"><div class="result__extras__url">
      <a class="result__url" href="//duckduckgo.com/l/?uddg=x">en.wikipedia.org/wiki/House_sparrow</a>
    </div></div>
    <a class="result__snippet" href="//duckduckgo.com/l/?uddg=x">The <b>house sparrow</b> is a bird of the
      sparrow family Passeridae, found in most parts of the world.</a>
    <div class="clear"></div>
  </div>
</div>
<div class="result results_links results_links_deep web-result ">
  <div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a"
      href="https://www.rspb.org.uk/birds/house-sparrow">House Sparrow Facts | RSPB</a></h2>
    <a class="result__snippet" href="https://www.rspb.org.uk/birds/house-sparrow">Learn about sparrows &amp; more.</a>
  </div>
</div>
<div class="result results_links results_links_deep web-result ">
  <div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a" href="https://example.org/no-snippet">Bare</a></h2>
  </div>
</div>
</div></body></html>"""

EXPECTED = [
    {
        "title": "House sparrow - Wikipedia",
        "url": "https://en.wikipedia.org/wiki/House_sparrow",
        "snippet": "The house sparrow is a bird of the sparrow family Passeridae, found in most parts of the world.",
    },
    {
        "title": "House Sparrow Facts | RSPB",
        "url": "https://www.rspb.org.uk/birds/house-sparrow",
        "snippet": "Learn about sparrows & more.",
    },
    {"title": "Bare", "url": "https://example.org/no-snippet", "snippet": ""},
]


def test_duckduckgo_results_through_the_html_endpoint(fake_web: FakeWeb) -> None:
    fake_web.route("/html/", Reply(body=DDG_PAGE), method="POST")
    tool = make_web_search(DuckDuckGoProvider(url=f"{fake_web.url}/html/", timeout=2))
    output = tool.invoke({"query": "  house   sparrow ", "max_results": 5})
    assert output.details == {"provider": "DuckDuckGo", "query": "house sparrow", "results": EXPECTED}
    assert output.content == (
        'Web results for "house sparrow" (DuckDuckGo):\n'
        "1. House sparrow - Wikipedia\n"
        "   https://en.wikipedia.org/wiki/House_sparrow\n"
        "   The house sparrow is a bird of the sparrow family Passeridae, found in most parts of the world.\n"
        "2. House Sparrow Facts | RSPB\n"
        "   https://www.rspb.org.uk/birds/house-sparrow\n"
        "   Learn about sparrows & more.\n"
        "3. Bare\n"
        "   https://example.org/no-snippet"
    )
    [seen] = fake_web.requests
    assert (seen.method, seen.form()["q"], seen.headers["User-Agent"].startswith("Mozilla/5.0 (X11")) == (
        "POST",
        "house sparrow",
        True,
    )


def test_max_results_limits_and_is_clamped(fake_web: FakeWeb) -> None:
    fake_web.route("/html/", Reply(body=DDG_PAGE), method="POST")
    tool = make_web_search(DuckDuckGoProvider(url=f"{fake_web.url}/html/", timeout=2))
    assert len(tool.invoke({"query": "sparrow", "max_results": 1}).details["results"]) == 1
    assert len(tool.invoke({"query": "sparrow", "max_results": 50}).details["results"]) == 3


def test_no_results_is_a_normal_answer(fake_web: FakeWeb) -> None:
    fake_web.route("/html/", Reply(body="<div class='no-results'>No results.</div>"), method="POST")
    output = make_web_search(DuckDuckGoProvider(url=f"{fake_web.url}/html/")).invoke({"query": "zxqv"})
    assert (output.content, output.details["results"]) == (
        'No web results for "zxqv" (DuckDuckGo). Try other words.',
        [],
    )


def test_duckduckgo_bot_check_is_explained(fake_web: FakeWeb) -> None:
    page = "<html><body><div class='anomaly-modal__title'>Unfortunately, bots use DuckDuckGo too.</div></body></html>"
    fake_web.route("/html/", Reply(202, page), method="POST")
    with pytest.raises(ToolError, match=r"^web search unavailable: DuckDuckGo asked for a bot check instead"):
        make_web_search(DuckDuckGoProvider(url=f"{fake_web.url}/html/")).invoke({"query": "sparrow"})


def test_empty_query_is_refused_without_a_request(fake_web: FakeWeb) -> None:
    with pytest.raises(ToolError, match="the query is empty"):
        make_web_search(DuckDuckGoProvider(url=f"{fake_web.url}/html/")).invoke({"query": "   "})
    assert fake_web.requests == []


def test_tavily_request_and_results(fake_web: FakeWeb) -> None:
    answer = {
        "query": "sparrow",
        "results": [
            {"title": "Sparrow", "url": "https://a.example/s", "content": "A small bird.", "score": 0.9},
            {"title": None, "url": "https://b.example/", "content": None},
            {"title": "no url"},
        ],
        "response_time": 0.5,
    }
    fake_web.route("/search", Reply(body=answer), method="POST")
    tool = make_web_search(TavilyProvider("tvly-test-123", url=fake_web.url, timeout=2))
    output = tool.invoke({"query": "sparrow", "max_results": 3})
    assert output.details["results"] == [
        {"title": "Sparrow", "url": "https://a.example/s", "snippet": "A small bird."},
        {"title": "https://b.example/", "url": "https://b.example/", "snippet": ""},
    ]
    [seen] = fake_web.requests
    assert seen.headers["Authorization"] == "Bearer tvly-test-123"
    assert seen.json() == {"query": "sparrow", "max_results": 3, "search_depth": "basic", "include_answer": False}


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (
            Reply(401, {"detail": {"error": "Unauthorized: missing or invalid API key."}}),
            "web search unavailable: Tavily refused the API key (HTTP 401); check TAVILY_API_KEY",
        ),
        (
            Reply(432, {"detail": {"error": "plan limit"}}),
            "web search unavailable: Tavily says the rate limit or plan quota is used up (HTTP 432)",
        ),
        (
            Reply(500, {"detail": {"error": "Internal error"}}),
            "web search failed: 127.0.0.1 answered HTTP 500 Internal Server Error: Internal error",
        ),
        (
            Reply(body=b"{not json", content_type="application/json"),
            "web search failed: 127.0.0.1 sent an unreadable answer (not valid JSON)",
        ),
        (
            Reply(body={"answer": "no results key"}),
            "web search failed: Tavily sent an unexpected answer (no 'results' list)",
        ),
    ],
)
def test_tavily_failures_become_clear_observations(fake_web: FakeWeb, reply: Reply, message: str) -> None:
    fake_web.route("/search", reply, method="POST")
    with pytest.raises(ToolError) as caught:
        make_web_search(TavilyProvider("tvly-x", url=fake_web.url, timeout=2)).invoke({"query": "q"})
    assert str(caught.value) == message


def test_keyed_provider_without_key_says_which_variable(fake_web: FakeWeb) -> None:
    with pytest.raises(ToolError) as caught:
        make_web_search(TavilyProvider(None, url=fake_web.url)).invoke({"query": "q"})
    assert str(caught.value) == (
        "web search unavailable: Tavily needs an API key: set TAVILY_API_KEY "
        "(or use SPARROW_SEARCH_PROVIDER=duckduckgo)"
    )
    assert fake_web.requests == []


def test_brave_request_and_results(fake_web: FakeWeb) -> None:
    answer = {
        "type": "search",
        "web": {
            "results": [
                {
                    "title": "House <strong>Sparrow</strong>",
                    "url": "https://c.example/",
                    "description": "A <strong>bird</strong>.",
                }
            ]
        },
    }
    fake_web.route("/res/v1/web/search", Reply(body=answer))
    output = make_web_search(BraveProvider("brv-key", url=fake_web.url, timeout=2)).invoke({"query": "sparrow"})
    assert output.details["results"] == [{"title": "House Sparrow", "url": "https://c.example/", "snippet": "A bird."}]
    [seen] = fake_web.requests
    assert (seen.query, seen.headers["X-Subscription-Token"]) == ({"q": "sparrow", "count": "5"}, "brv-key")


def test_brave_bad_key(fake_web: FakeWeb) -> None:
    fake_web.route("/res/v1/web/search", Reply(403, {"error": {"detail": "bad token"}}))
    with pytest.raises(ToolError, match=r"Brave refused the API key \(HTTP 403\); check BRAVE_API_KEY"):
        make_web_search(BraveProvider("nope", url=fake_web.url)).invoke({"query": "q"})


def test_no_network_and_slow_service_are_quick_observations(fake_web: FakeWeb, closed_port: int) -> None:
    offline = make_web_search(DuckDuckGoProvider(url=f"http://127.0.0.1:{closed_port}/html/", timeout=2))
    with pytest.raises(ToolError) as caught:
        offline.invoke({"query": "q"})
    assert str(caught.value) == (
        f"web search unavailable: no network connection (connection to 127.0.0.1:{closed_port} refused)"
    )
    fake_web.route("/html/", Reply(body=DDG_PAGE, delay=10), method="POST")
    slow = make_web_search(DuckDuckGoProvider(url=f"{fake_web.url}/html/", timeout=0.3))
    started = time.monotonic()
    with pytest.raises(ToolError, match=r"^web search unavailable: no answer from 127\.0\.0\.1 within 0\.3 s$"):
        slow.invoke({"query": "q"})
    assert time.monotonic() - started < 1.5


def test_offline_search_reaches_the_model_as_an_observation(closed_port: int) -> None:
    tool = make_web_search(DuckDuckGoProvider(url=f"http://127.0.0.1:{closed_port}/html/", timeout=2))
    [result] = ToolRunner(ToolSet([tool]), timeout=5).run([CallRequest("c1", "web_search", {"query": "news"})])
    assert result.output.startswith("Error: web search unavailable: no network connection")
    assert result.error is not None and result.details is None


def test_default_tool_follows_the_environment(fake_web: FakeWeb, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_web.route("/ddg", Reply(body=DDG_PAGE), method="POST")
    fake_web.route(
        "/tavily/search", Reply(body={"results": [{"title": "T", "url": "https://t.example/"}]}), method="POST"
    )
    monkeypatch.setenv("SPARROW_DUCKDUCKGO_URL", f"{fake_web.url}/ddg")
    monkeypatch.setenv("SPARROW_TAVILY_URL", f"{fake_web.url}/tavily")
    assert web_search.invoke({"query": "sparrow"}).details["provider"] == "DuckDuckGo"
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-env")
    assert web_search.invoke({"query": "sparrow"}).details["provider"] == "Tavily"
    assert fake_web.requests[-1].headers["Authorization"] == "Bearer tvly-env"
    monkeypatch.setenv("SPARROW_SEARCH_PROVIDER", "bing")
    with pytest.raises(ToolError, match="SPARROW_SEARCH_PROVIDER='bing' is not a known provider; use one of: duck"):
        web_search.invoke({"query": "sparrow"})


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "DuckDuckGo"),
        ({"TAVILY_API_KEY": "k"}, "Tavily"),
        ({"BRAVE_API_KEY": "k"}, "Brave"),
        ({"TAVILY_API_KEY": "k", "BRAVE_API_KEY": "k"}, "Tavily"),
        ({"TAVILY_API_KEY": "k", "SPARROW_SEARCH_PROVIDER": "duckduckgo"}, "DuckDuckGo"),
        ({"SPARROW_SEARCH_PROVIDER": " Brave "}, "Brave"),
        ({"SPARROW_SEARCH_PROVIDER": "auto", "BRAVE_API_KEY": "k"}, "Brave"),
    ],
)
def test_provider_choice(env: dict[str, str], expected: str) -> None:
    assert provider_from_env(env).name == expected


def test_provider_base_urls_and_timeout_from_env() -> None:
    provider = provider_from_env(
        {"SPARROW_TAVILY_URL": "http://127.0.0.1:9/", "TAVILY_API_KEY": "k", "SPARROW_HTTP_TIMEOUT": "3"}
    )
    assert isinstance(provider, TavilyProvider)
    assert (provider.url, provider.client.timeout) == ("http://127.0.0.1:9", 3.0)
    with pytest.raises(SearchError):
        provider_from_env({"SPARROW_SEARCH_PROVIDER": "nope"})


@pytest.mark.parametrize(
    ("href", "url"),
    [
        ("//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fx%3Fy%3D1&rut=z", "https://a.example/x?y=1"),
        ("https://duckduckgo.com/y.js?ad_domain=x", ""),
        ("//duckduckgo.com/l/?uddg=javascript%3Aalert(1)", ""),
        ("https://b.example/page", "https://b.example/page"),
        ("/relative", ""),
    ],
)
def test_result_url(href: str, url: str) -> None:
    assert result_url(href) == url


def test_parser_tolerates_broken_markup() -> None:
    results = parse_duckduckgo_html('<a class="result__a" href="https://x.example/">Unclosed <b>title')
    assert results == []
    results = parse_duckduckgo_html(
        '<h2><a class="result__a" href="https://x.example/">X</a></h2><div class="result__snippet">S'
    )
    assert results == [SearchResult("X", "https://x.example/", "")]


def test_snippets_are_shortened_for_the_model_only() -> None:
    long = SearchResult("T" * 300, "https://x.example/", "word " * 100)
    text = format_results("q", [long], "Fake", snippet_chars=40)
    assert text.splitlines()[1] == f"1. {'T' * 119}…"
    assert text.splitlines()[3] == "   word word word word word word word word…"
    assert shorten("short", 10) == "short"
