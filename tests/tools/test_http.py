"""The shared HTTP client against a real local server: deadlines, limits, redirects, errors."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from agent_core.tools.network import http
from agent_core.tools.network.http import (
    BadResponse,
    HttpClient,
    HttpStatusError,
    HttpTimeout,
    InvalidURL,
    NetworkError,
    parse_url,
    tool_error,
    with_params,
)
from tests.tools.conftest import FakeWeb, Reply


def test_get_json_with_params_and_default_headers(fake_web: FakeWeb) -> None:
    fake_web.route("/api", Reply(body={"ok": True, "text": "héllo"}))
    response = HttpClient(timeout=2).get(f"{fake_web.url}/api", params={"q": "a b&c", "n": 3, "skip": None})
    assert (response.status, response.json(), response.content_type) == (
        200,
        {"ok": True, "text": "héllo"},
        "application/json",
    )
    seen = fake_web.requests[0]
    assert seen.query == {"q": "a b&c", "n": "3"}
    assert seen.headers["User-Agent"].startswith("Mozilla/5.0 (compatible; Sparrow-agent")
    assert seen.headers["Accept-Encoding"] == "gzip"


def test_post_json_and_form_bodies(fake_web: FakeWeb) -> None:
    fake_web.route("/json", lambda seen: Reply(body={"got": seen.json()}), method="POST")
    fake_web.route("/form", lambda seen: Reply(body={"got": seen.form()}), method="POST")
    client = HttpClient(timeout=2)
    assert client.post_json(f"{fake_web.url}/json", {"a": [1, 2]}).json() == {"got": {"a": [1, 2]}}
    assert client.post_form(f"{fake_web.url}/form", {"q": "x y"}).json() == {"got": {"q": "x y"}}
    assert fake_web.requests[1].headers["Content-Type"] == "application/x-www-form-urlencoded"


def test_gzip_answers_are_decoded(fake_web: FakeWeb) -> None:
    fake_web.route("/z", Reply(body={"items": list(range(500))}, gzip=True))
    assert HttpClient(timeout=2).get(f"{fake_web.url}/z").json() == {"items": list(range(500))}


def test_body_stops_at_max_bytes(fake_web: FakeWeb) -> None:
    fake_web.route("/big", Reply(body=b"x" * 3_000_000, content_type="text/plain"))
    started = time.monotonic()
    response = HttpClient(timeout=5, max_bytes=10_000).get(f"{fake_web.url}/big")
    assert (len(response.body), response.truncated) == (10_000, True)
    assert time.monotonic() - started < 2
    with pytest.raises(BadResponse, match="larger than 10,000 bytes"):
        response.json()


def test_gzip_bomb_is_cut_at_max_bytes(fake_web: FakeWeb) -> None:
    fake_web.route("/bomb", Reply(body=b"\0" * 20_000_000, gzip=True, content_type="text/plain"))
    response = HttpClient(timeout=5, max_bytes=50_000).get(f"{fake_web.url}/bomb")
    assert (len(response.body), response.truncated) == (50_000, True)


def test_slow_server_times_out_quickly(fake_web: FakeWeb) -> None:
    fake_web.route("/slow", Reply(body={"late": True}, delay=10))
    started = time.monotonic()
    with pytest.raises(HttpTimeout, match=r"no answer from 127\.0\.0\.1 within 0\.3 s"):
        HttpClient(timeout=0.3).get(f"{fake_web.url}/slow")
    assert time.monotonic() - started < 1.5


def test_dripping_body_is_held_to_the_overall_deadline(fake_web: FakeWeb) -> None:
    fake_web.route("/drip", Reply(body=b"y" * 100, content_type="text/plain", chunk=1, drip=0.1))
    started = time.monotonic()
    with pytest.raises(HttpTimeout):
        HttpClient(timeout=0.5).get(f"{fake_web.url}/drip")
    assert time.monotonic() - started < 1.5


def test_connection_refused_is_a_network_error(closed_port: int) -> None:
    with pytest.raises(
        NetworkError, match=rf"no network connection \(connection to 127\.0\.0\.1:{closed_port} refused"
    ):
        HttpClient(timeout=2).get(f"http://127.0.0.1:{closed_port}/")


def test_stuck_name_lookup_cannot_outlast_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()

    def stuck(*args: object, **kwargs: object) -> list[object]:
        release.wait(5)
        raise socket.gaierror(-3, "Temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", stuck)
    started = time.monotonic()
    with pytest.raises(HttpTimeout, match="looking up localhost took longer"):
        HttpClient(timeout=0.3).get("http://localhost/")
    release.set()
    assert time.monotonic() - started < 1.5


def test_failed_name_lookup_says_no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def offline(*args: object, **kwargs: object) -> list[object]:
        raise socket.gaierror(-3, "Temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", offline)
    with pytest.raises(NetworkError) as caught:
        HttpClient(timeout=1).get("http://localhost/")
    assert str(caught.value) == (
        "no network connection (could not resolve host 'localhost': temporary failure in name resolution)"
    )


def test_status_errors_carry_the_json_reason(fake_web: FakeWeb) -> None:
    fake_web.route("/bad", Reply(400, {"error": True, "reason": "Parameter 'latitude' is out of range"}))
    fake_web.route("/nested", Reply(401, {"error": {"message": "Invalid API key"}}))
    fake_web.route("/html", Reply(503, "<html><body>down</body></html>"))
    client = HttpClient(timeout=2)
    with pytest.raises(HttpStatusError) as caught:
        client.get(f"{fake_web.url}/bad")
    assert (caught.value.status, str(caught.value)) == (
        400,
        "127.0.0.1 answered HTTP 400 Bad Request: Parameter 'latitude' is out of range",
    )
    with pytest.raises(HttpStatusError, match=r"HTTP 401 Unauthorized: Invalid API key$"):
        client.get(f"{fake_web.url}/nested")
    with pytest.raises(HttpStatusError, match=r"HTTP 503 Service Unavailable$"):
        client.get(f"{fake_web.url}/html")


def test_malformed_json_is_a_bad_response(fake_web: FakeWeb) -> None:
    fake_web.route("/broken", Reply(body=b'{"results": [', content_type="application/json"))
    with pytest.raises(BadResponse, match=r"127\.0\.0\.1 sent an unreadable answer \(not valid JSON\)"):
        HttpClient(timeout=2).get(f"{fake_web.url}/broken").json()


def test_redirects_are_followed_and_recorded(fake_web: FakeWeb) -> None:
    fake_web.route("/a", Reply(301, headers={"Location": "/b?x=1"}))
    fake_web.route("/b", Reply(302, headers={"Location": f"{fake_web.url}/c"}))
    fake_web.route("/c", Reply(body="<p>done</p>"))
    response = HttpClient(timeout=2).get(f"{fake_web.url}/a")
    assert (response.url, response.redirects, response.text()) == (
        f"{fake_web.url}/c",
        (f"{fake_web.url}/b?x=1", f"{fake_web.url}/c"),
        "<p>done</p>",
    )
    assert fake_web.paths() == ["/a", "/b", "/c"]


def test_redirect_loops_stop(fake_web: FakeWeb) -> None:
    fake_web.route("/loop", Reply(302, headers={"Location": "/loop"}))
    with pytest.raises(BadResponse, match="redirected more than 3 times"):
        HttpClient(timeout=2, max_redirects=3).get(f"{fake_web.url}/loop")
    assert len(fake_web.requests) == 4


def test_303_turns_a_post_into_a_get(fake_web: FakeWeb) -> None:
    fake_web.route("/submit", Reply(303, headers={"Location": "/result"}), method="POST")
    fake_web.route("/result", Reply(body={"ok": 1}))
    assert HttpClient(timeout=2).post_json(f"{fake_web.url}/submit", {"a": 1}).json() == {"ok": 1}
    assert [(s.method, s.path) for s in fake_web.requests] == [("POST", "/submit"), ("GET", "/result")]


def test_credentials_are_not_sent_to_another_origin(fake_web: FakeWeb) -> None:
    other = FakeWeb().start()
    try:
        other.route("/land", Reply(body={"ok": 1}))
        fake_web.route("/same", Reply(302, headers={"Location": "/here"}))
        fake_web.route("/here", Reply(body={"ok": 1}))
        fake_web.route("/away", Reply(302, headers={"Location": f"{other.url}/land"}))
        client = HttpClient(timeout=2)
        client.get(f"{fake_web.url}/same", headers={"Authorization": "Bearer secret1"})
        client.get(f"{fake_web.url}/away", headers={"Authorization": "Bearer secret2"})
        assert fake_web.requests[1].headers.get("Authorization") == "Bearer secret1"
        assert "Authorization" not in other.requests[0].headers
    finally:
        other.stop()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("file:///etc/passwd", "only http and https URLs can be fetched, not file"),
        ("ftp://example.com/x", "only http and https URLs can be fetched, not ftp"),
        ("example.com/page", "not a URL without scheme"),
        ("http:///nohost", "has no host name"),
        ("http://user:pw@example.com/", "user name or password"),
        ("http://example.com:99999/", "is not a valid URL"),
    ],
)
def test_invalid_urls_are_refused_before_any_connection(url: str, message: str) -> None:
    with pytest.raises(InvalidURL, match=message.replace(".", r"\.")):
        parse_url(url)


def test_urls_are_normalised() -> None:
    target = parse_url("HTTPS://Bücher.example/a b/ü?q=ä b")
    assert (target.scheme, target.host, target.port, target.path) == (
        "https",
        "xn--bcher-kva.example",
        443,
        "/a%20b/%C3%BC?q=%C3%A4%20b",
    )
    assert with_params("http://x/y?a=1", {"b": "2 3"}) == "http://x/y?a=1&b=2+3"


def test_tool_error_words_by_kind() -> None:
    cases = [
        (NetworkError("no network connection (x)"), "svc unavailable: no network connection (x)"),
        (HttpTimeout("no answer"), "svc unavailable: no answer"),
        (http.BlockedAddress("10.0.0.1 is a private address"), "svc refused: 10.0.0.1 is a private address"),
        (HttpStatusError("HTTP 500", status=500), "svc failed: HTTP 500"),
    ]
    assert [str(tool_error("svc", exc)) for exc, _ in cases] == [text for _, text in cases]


def test_env_timeout_is_validated() -> None:
    assert http.env_timeout({}) == http.DEFAULT_TIMEOUT
    assert http.env_timeout({"SPARROW_HTTP_TIMEOUT": "2.5"}) == 2.5
    with pytest.raises(ValueError, match=r"^SPARROW_HTTP_TIMEOUT must be a number, got 'soon'$"):
        http.env_timeout({"SPARROW_HTTP_TIMEOUT": "soon"})
    with pytest.raises(ValueError, match=r"^SPARROW_HTTP_TIMEOUT must be greater than 0, got '0'$"):
        http.env_timeout({"SPARROW_HTTP_TIMEOUT": "0"})
    with pytest.raises(ValueError, match=r"^SPARROW_HTTP_TIMEOUT must be less than or equal to 300, got '301'$"):
        http.env_timeout({"SPARROW_HTTP_TIMEOUT": "301"})
