"""fetch_url through a real local server: text extraction, limits, and the SSRF guard (on by default)."""

from __future__ import annotations

import ipaddress
import time

import pytest

from agent_core.tools.network.fetch import Fetcher, fetch_url, html_to_text, make_fetch_url
from agent_core.tools.network.http import AddressPolicy, BlockedAddress, non_public_reason
from agent_core.tools.runner import CallRequest, ToolRunner
from agent_core.tools.tool import ToolError, ToolSet
from tests.tools.conftest import FakeWeb, Reply

PAGE = """<!doctype html>
<html><head><title>Sparrows &amp; Finches</title><style>p { color: red }</style>
<script>var secret = "do not show";</script><meta charset="utf-8"></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<h1>House sparrow</h1>
<p>The house sparrow is a bird of the   sparrow family.</p>
<h2>Diet</h2><ul><li>seeds</li><li>insects</li></ul>
<pre>def fly():
    return "up"</pre>
<table><tr><th>Length</th><td>16 cm</td></tr></table>
<footer>© 2024 Bird site</footer></body></html>"""


def local_fetcher(**kwargs: object) -> Fetcher:
    """A fetcher allowed to reach the test server on 127.0.0.1 only."""
    return Fetcher(allowed_networks=["127.0.0.1/32"], timeout=2, **kwargs)  # type: ignore[arg-type]


def test_html_page_becomes_readable_text(fake_web: FakeWeb) -> None:
    fake_web.route("/sparrow", Reply(body=PAGE))
    output = make_fetch_url(local_fetcher()).invoke({"url": f"{fake_web.url}/sparrow"})
    assert output.content == (
        "Title: Sparrows & Finches\n"
        f"URL: {fake_web.url}/sparrow\n\n"
        "# House sparrow\n\n"
        "The house sparrow is a bird of the sparrow family.\n\n"
        "## Diet\n\n"
        "- seeds\n"
        "- insects\n\n"
        'def fly():\n    return "up"\n\n'
        "| Length | 16 cm"
    )
    assert output.details == {
        "url": f"{fake_web.url}/sparrow",
        "final_url": f"{fake_web.url}/sparrow",
        "status": 200,
        "content_type": "text/html",
        "title": "Sparrows & Finches",
        "bytes": len(PAGE.encode()),
        "truncated": False,
        "redirects": [],
    }


def test_extraction_survives_a_missing_head_end_and_uses_h1_as_title() -> None:
    title, text = html_to_text("<html><head><link rel=x><body><h1>Only heading</h1><p>Body text</p>")
    assert (title, text) == ("Only heading", "# Only heading\n\nBody text")


def test_plain_text_and_json_pass_through(fake_web: FakeWeb) -> None:
    fake_web.route("/notes.txt", Reply(body=b"line one\nline two\n", content_type="text/plain; charset=utf-8"))
    fake_web.route("/data", Reply(body={"a": 1}))
    tool = make_fetch_url(local_fetcher())
    assert tool.invoke({"url": f"{fake_web.url}/notes.txt"}).content.endswith("\n\nline one\nline two")
    assert tool.invoke({"url": f"{fake_web.url}/data"}).content.endswith('\n\n{"a": 1}')


def test_charset_from_meta_tag(fake_web: FakeWeb) -> None:
    body = '<html><head><meta charset="iso-8859-1"></head><body><p>Café crème</p></body></html>'.encode("latin-1")
    fake_web.route("/latin", Reply(body=body, content_type="text/html"))
    assert make_fetch_url(local_fetcher()).invoke({"url": f"{fake_web.url}/latin"}).content.endswith("Café crème")


def test_binary_content_is_refused(fake_web: FakeWeb) -> None:
    fake_web.route("/file.pdf", Reply(body=b"%PDF-1.7 \x00\x01\x02", content_type="application/pdf"))
    with pytest.raises(ToolError, match=r"127\.0\.0\.1 sent application/pdf, not a text page"):
        make_fetch_url(local_fetcher()).invoke({"url": f"{fake_web.url}/file.pdf"})


def test_large_pages_are_cut_at_max_bytes_and_max_chars(fake_web: FakeWeb) -> None:
    fake_web.route("/huge", Reply(body="<p>" + "word " * 400_000 + "</p>"))
    output = make_fetch_url(local_fetcher(max_bytes=20_000, max_chars=500)).invoke({"url": f"{fake_web.url}/huge"})
    assert output.content.endswith("[page cut at 20,000 bytes]\n[text cut at 500 of 19,997 characters]")
    assert output.details["bytes"] == 20_000 and output.details["truncated"] is True


def test_http_errors_timeouts_and_refusals_are_observations(fake_web: FakeWeb, closed_port: int) -> None:
    fake_web.route("/gone", Reply(404, "<h1>Not here</h1>"))
    fake_web.route("/slow", Reply(body="late", delay=10))
    tool = make_fetch_url(Fetcher(allowed_networks=["127.0.0.1/32"], timeout=0.3))
    with pytest.raises(ToolError, match=r"^fetch_url failed: 127\.0\.0\.1 answered HTTP 404 Not Found$"):
        tool.invoke({"url": f"{fake_web.url}/gone"})
    started = time.monotonic()
    with pytest.raises(ToolError, match=r"^fetch_url unavailable: no answer from 127\.0\.0\.1 within 0\.3 s$"):
        tool.invoke({"url": f"{fake_web.url}/slow"})
    assert time.monotonic() - started < 1.5
    with pytest.raises(ToolError, match=r"^fetch_url unavailable: no network connection \(connection to 127"):
        tool.invoke({"url": f"http://127.0.0.1:{closed_port}/"})


def test_fetch_url_needs_approval_by_default() -> None:
    assert fetch_url.needs_approval is True
    assert make_fetch_url(needs_approval=False).needs_approval is False


# --- the SSRF guard -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:{port}/",
        "http://localhost:{port}/",
        "http://[::1]:{port}/",
        "http://10.0.0.1/",
        "http://172.16.5.4/",
        "http://192.168.1.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fe80::1]/",
        "http://[::ffff:127.0.0.1]:{port}/",
        "http://2130706433:{port}/",
        "http://0x7f.1:{port}/",
        "http://127.1:{port}/",
        "http://0.0.0.0:{port}/",
        "http://100.64.0.1/",
    ],
)
def test_default_guard_refuses_non_public_addresses(fake_web: FakeWeb, url: str) -> None:
    fake_web.route("/", Reply(body="<p>internal</p>"))
    with pytest.raises(ToolError, match=r"^fetch_url refused: .* only public internet addresses may be fetched$"):
        fetch_url.invoke({"url": url.format(port=fake_web.port)})
    assert fake_web.requests == []


def test_refusal_names_the_host_and_the_reason() -> None:
    with pytest.raises(ToolError) as caught:
        fetch_url.invoke({"url": "http://169.254.169.254/latest/meta-data/"})
    assert str(caught.value) == (
        "fetch_url refused: 169.254.169.254 is a link-local address; only public internet addresses may be fetched"
    )
    with pytest.raises(ToolError, match=r"localhost \(127\.0\.0\.1\) is a loopback address"):
        fetch_url.invoke({"url": "http://localhost/"})


def test_other_schemes_are_refused() -> None:
    with pytest.raises(ToolError, match=r"^fetch_url refused: only http and https URLs can be fetched, not file"):
        fetch_url.invoke({"url": "file:///etc/passwd"})


@pytest.mark.parametrize(
    "target", ["http://169.254.169.254/latest/meta-data/", "http://[::1]:{port}/", "http://10.1.2.3/"]
)
def test_redirect_to_a_private_address_is_refused(fake_web: FakeWeb, target: str) -> None:
    fake_web.route("/jump", Reply(302, headers={"Location": target.format(port=fake_web.port)}))
    with pytest.raises(ToolError, match=r"^fetch_url refused: .* only public internet addresses may be fetched$"):
        make_fetch_url(local_fetcher()).invoke({"url": f"{fake_web.url}/jump"})
    assert fake_web.paths() == ["/jump"]


def test_redirects_within_allowed_addresses_are_followed(fake_web: FakeWeb) -> None:
    fake_web.route("/old", Reply(301, headers={"Location": "/new"}))
    fake_web.route("/new", Reply(body="<p>moved here</p>"))
    output = make_fetch_url(local_fetcher()).invoke({"url": f"{fake_web.url}/old"})
    assert output.content == f"URL: {fake_web.url}/new\n\nmoved here"
    assert output.details["redirects"] == [f"{fake_web.url}/new"]


def test_env_switch_turns_the_guard_off_for_the_default_tool(
    fake_web: FakeWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_web.route("/", Reply(body="<p>local page</p>"))
    monkeypatch.setenv("SPARROW_FETCH_ALLOW_PRIVATE", "1")
    assert fetch_url.invoke({"url": f"{fake_web.url}/"}).content.endswith("local page")
    monkeypatch.setenv("SPARROW_FETCH_ALLOW_PRIVATE", "0")
    with pytest.raises(ToolError, match="loopback"):
        fetch_url.invoke({"url": f"{fake_web.url}/"})


def test_allow_private_factory_setting(fake_web: FakeWeb) -> None:
    fake_web.route("/", Reply(body="<p>ok</p>"))
    assert (
        make_fetch_url(Fetcher(allow_private=True, timeout=2))
        .invoke({"url": f"{fake_web.url}/"})
        .content.endswith("ok")
    )


def test_guard_failure_reaches_the_model_as_an_observation() -> None:
    runner = ToolRunner(ToolSet([fetch_url]), timeout=5)
    [result] = runner.run([CallRequest("c1", "fetch_url", {"url": "http://10.0.0.1/admin"})])
    assert result.output == (
        "Error: fetch_url refused: 10.0.0.1 is a private address; only public internet addresses may be fetched"
    )


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "a loopback address"),
        ("10.0.0.1", "a private address"),
        ("172.31.255.255", "a private address"),
        ("192.168.0.1", "a private address"),
        ("169.254.169.254", "a link-local address"),
        ("100.64.0.1", "not a public address"),
        ("0.0.0.0", "an unspecified address"),
        ("224.0.0.1", "a multicast address"),
        ("240.0.0.1", "a private address"),
        ("255.255.255.255", "a private address"),
        ("::1", "a loopback address"),
        ("::", "an unspecified address"),
        ("fe80::1", "a link-local address"),
        ("fc00::1", "a private address"),
        ("ff02::1", "a multicast address"),
        ("::ffff:127.0.0.1", "a loopback address in disguise (127.0.0.1)"),
        ("::ffff:10.0.0.1", "a private address in disguise (10.0.0.1)"),
        ("64:ff9b::a9fe:a9fe", "a link-local address in disguise (169.254.169.254)"),
        ("2002:7f00:1::1", "a loopback address in disguise (127.0.0.1)"),
        ("93.184.216.34", None),
        ("8.8.8.8", None),
        ("2606:4700:4700::1111", None),
    ],
)
def test_non_public_reason(address: str, reason: str | None) -> None:
    assert non_public_reason(ipaddress.ip_address(address)) == reason


def test_every_resolved_address_must_pass() -> None:
    policy = AddressPolicy()
    policy.check("example.com", ["93.184.216.34", "2606:2800:220:1::1"])
    with pytest.raises(BlockedAddress, match=r"example\.com \(10\.0\.0\.5\) is a private address"):
        policy.check("example.com", ["93.184.216.34", "10.0.0.5"])


def test_allowed_networks_open_only_those_ranges() -> None:
    policy = AddressPolicy.build(allowed_networks=["10.1.0.0/16"])
    policy.check("intranet", ["10.1.2.3"])
    with pytest.raises(BlockedAddress):
        policy.check("other", ["10.2.0.1"])
    with pytest.raises(ValueError, match=r"'10\.1\.0\.0/99' is not an IP network"):
        AddressPolicy.build(allowed_networks=["10.1.0.0/99"])


def test_fetcher_from_env() -> None:
    fetcher = Fetcher.from_env(
        {"SPARROW_FETCH_ALLOWED_NETWORKS": "10.0.0.0/8, 192.168.1.0/24", "SPARROW_FETCH_MAX_BYTES": "5000"}
    )
    assert [str(n) for n in fetcher.policy.allowed_networks] == ["10.0.0.0/8", "192.168.1.0/24"]
    assert (fetcher.policy.allow_private, fetcher.client.max_bytes) == (False, 5000)
    with pytest.raises(ValueError, match=r"^SPARROW_FETCH_MAX_BYTES must be a whole number, got 'lots'$"):
        Fetcher.from_env({"SPARROW_FETCH_MAX_BYTES": "lots"})
