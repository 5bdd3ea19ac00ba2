"""HTTP for the tools that reach the world: stdlib only, one deadline per request, a size limit, an SSRF guard.

Why not ``urllib.request``: it follows redirects itself, cannot pin the address it checked (DNS rebinding) and
has no overall deadline. Here a URL must be http(s) without credentials (``parse_url``); every host is resolved in
a helper thread, so a dead resolver cannot hang a tool (``resolve``); each resolved address may be checked by an
``AddressPolicy`` (no loopback, private, link-local or reserved address, also when hidden in an IPv6 form); the
connection goes to exactly the checked address (TLS still verifies the host name); every read is capped by the
time left; redirects are followed by hand and checked again; bodies stop at ``max_bytes``, compressed ones too.
Failures are ``HttpError`` subclasses whose messages are plain sentences; ``tool_error`` turns one into the
observation a model reads ("web search unavailable: no network connection (...)").
"""

from __future__ import annotations

import codecs
import http.client
import ipaddress
import json
import re
import socket
import ssl
import threading
import time
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote, urlencode, urljoin, urlsplit

from agent_core.env_settings import env_settings
from agent_core.guards import json_limits
from agent_core.tools.tool import ToolError

# --- failures, each a plain sentence -------------------------------------------------------------------------------


class HttpError(Exception):
    """A request failed before a usable answer arrived; the message says why in plain words."""


class NetworkError(HttpError):
    """No connection could be made: no network, unknown host, connection refused, TLS failure."""


class HttpTimeout(HttpError):
    """The server (or the name lookup) did not answer before the deadline."""


class HttpStatusError(HttpError):
    """The server answered with an HTTP error status (4xx or 5xx)."""

    def __init__(self, message: str, *, status: int, body: bytes = b"") -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class BlockedAddress(HttpError):
    """The address policy (SSRF guard) refused to connect to a host."""


class InvalidURL(HttpError):
    """The URL cannot be requested (bad syntax, scheme other than http/https, credentials...)."""


class BadResponse(HttpError):
    """The answer arrived but cannot be used: invalid JSON, broken HTTP, too many redirects, too large."""


def tool_error(service: str, exc: HttpError) -> ToolError:
    """The observation for a failed request: '<service> unavailable: ...', '... refused: ...' or '... failed: ...'."""
    if isinstance(exc, NetworkError | HttpTimeout):
        verb = "unavailable"
    elif isinstance(exc, BlockedAddress | InvalidURL):
        verb = "refused"
    else:
        verb = "failed"
    return ToolError(f"{service} {verb}: {exc}")


def os_reason(exc: BaseException) -> str:
    """The OS error text of ``exc`` in lower case ("connection refused"), or its message."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror[0].lower() + exc.strerror[1:]
    return str(exc) or type(exc).__name__


# --- where a request may connect (the SSRF guard) and name resolution that cannot hang -----------------------------

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class AddressPolicy:
    """Which resolved addresses a request may connect to: public ones only, unless allowed here."""

    allow_private: bool = False
    """Allow every address, including loopback, private, link-local (cloud metadata) and reserved ones."""
    allowed_networks: tuple[IPNetwork, ...] = ()
    """Non-public networks that are allowed anyway (e.g. an intranet range, or 127.0.0.1/32 in tests)."""

    @classmethod
    def build(cls, *, allow_private: bool = False, allowed_networks: Iterable[str] = ()) -> AddressPolicy:
        """A policy from plain strings such as "10.1.0.0/16"; ValueError names a bad network."""
        networks = []
        for text in allowed_networks:
            try:
                networks.append(ipaddress.ip_network(text.strip(), strict=False))
            except ValueError:
                raise ValueError(f"{text!r} is not an IP network such as 10.1.0.0/16") from None
        return cls(allow_private=allow_private, allowed_networks=tuple(networks))

    def check(self, host: str, addresses: Sequence[str]) -> None:
        """Raise BlockedAddress unless EVERY address of ``host`` may be contacted."""
        if self.allow_private:
            return
        for text in addresses:
            ip = ipaddress.ip_address(text)
            if any(ip in network for network in self.allowed_networks):
                continue
            reason = non_public_reason(ip)
            if reason:
                shown = host if host == str(ip) else f"{host} ({ip})"
                raise BlockedAddress(f"{shown} is {reason}; only public internet addresses may be fetched")


def non_public_reason(ip: IPAddress) -> str | None:
    """Why ``ip`` is not a public internet address ("a loopback address", ...), or None when it is public."""
    for inner in _embedded_ipv4(ip):
        reason = non_public_reason(inner)
        if reason:
            return f"{reason} in disguise ({inner})"
    checks = (
        (ip.is_loopback, "a loopback address"),
        (ip.is_link_local, "a link-local address"),
        (ip.is_multicast, "a multicast address"),
        (ip.is_unspecified, "an unspecified address"),
        (ip.is_private, "a private address"),
        (ip.is_reserved, "a reserved address"),
        (not ip.is_global, "not a public address"),
    )
    return next((reason for failed, reason in checks if failed), None)


_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def _embedded_ipv4(ip: IPAddress) -> list[ipaddress.IPv4Address]:
    if not isinstance(ip, ipaddress.IPv6Address):
        return []
    found = [ip.ipv4_mapped, ip.sixtofour, ip.teredo[1] if ip.teredo else None]
    if ip in _NAT64:
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return [inner for inner in found if inner is not None]


def resolve(host: str, port: int, timeout: float) -> list[str]:
    """The IP addresses of ``host``, looked up in a helper thread so a stuck resolver cannot outlast ``timeout``."""
    literal = ip_literal(host)
    if literal is not None:
        return [literal]
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def lookup() -> None:
        try:
            outcome["infos"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except BaseException as exc:  # handed to the caller's thread below
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=lookup, name=f"resolve-{host}", daemon=True).start()
    if not done.wait(timeout):
        raise HttpTimeout(f"looking up {host} took longer than {timeout:.3g} s (no network connection?)")
    error = outcome.get("error")
    if error is not None and not isinstance(error, Exception):
        raise error
    if error is not None:
        raise NetworkError(f"no network connection (could not resolve host {host!r}: {os_reason(error)})")
    addresses = list(dict.fromkeys(str(info[4][0]).split("%")[0] for info in outcome["infos"]))
    if not addresses:
        raise NetworkError(f"no network connection (host {host!r} has no address)")
    return addresses


def ip_literal(host: str) -> str | None:
    """The address ``host`` spells, also in the legacy forms the C library accepts ("2130706433", "0x7f.1")."""
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    if re.fullmatch(r"[0-9a-fA-FxX.]+", host):
        try:
            return socket.inet_ntoa(socket.inet_aton(host))
        except OSError:
            return None
    return None


# --- request URLs: http(s) only, no credentials, IDNA host names, quoted paths -------------------------------------

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


# --- the client ----------------------------------------------------------------------------------------------------

DEFAULT_TIMEOUT = 10.0
"""Seconds for one whole request (lookup, connect, redirects, body) unless a tool says otherwise."""
DEFAULT_MAX_BYTES = 2_000_000
"""Largest (decoded) body kept; JSON answers larger than this are an error, pages are cut."""
MAX_REDIRECTS = 5
USER_AGENT = "Mozilla/5.0 (compatible; Sparrow-agent/0.1)"

_REDIRECTS = {301, 302, 303, 307, 308}
_CHUNK = 64 * 1024


def env_timeout(environ: Mapping[str, str] | None = None) -> float:
    """The request timeout from SPARROW_HTTP_TIMEOUT (seconds, more than 0 and at most 300), or DEFAULT_TIMEOUT."""
    return env_settings(environ).sparrow_http_timeout or DEFAULT_TIMEOUT


@dataclass(frozen=True)
class Response:
    """A finished HTTP exchange: status, headers (lower-case names), body (at most max_bytes), redirects taken."""

    url: str
    status: int
    reason: str
    headers: Mapping[str, str]
    body: bytes
    truncated: bool = False
    """True when the body was cut at the client's max_bytes."""
    redirects: tuple[str, ...] = ()

    @property
    def content_type(self) -> str:
        """The media type in lower case without parameters ("text/html"), or ""."""
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    @property
    def charset(self) -> str | None:
        """The charset parameter of Content-Type, if it names a known codec."""
        for part in self.headers.get("content-type", "").split(";")[1:]:
            key, _, value = part.partition("=")
            if key.strip().lower() == "charset":
                return known_codec(value.strip().strip("\"'"))
        return None

    def text(self, fallback: str = "utf-8") -> str:
        """The body decoded with its charset (or ``fallback``), undecodable bytes replaced."""
        return self.body.decode(self.charset or fallback, errors="replace")

    def json(self) -> Any:
        """The body parsed as JSON; BadResponse when it is cut or not JSON."""
        host = urlsplit(self.url).hostname or self.url
        if self.truncated:
            raise BadResponse(f"{host} sent an answer larger than {len(self.body):,} bytes")
        try:
            return json_limits.loads(self.body)
        except (ValueError, UnicodeDecodeError):
            raise BadResponse(f"{host} sent an unreadable answer (not valid JSON)") from None


def known_codec(name: str) -> str | None:
    """``name`` if Python knows that text encoding, else None."""
    try:
        return codecs.lookup(name).name
    except (LookupError, ValueError):
        return None


class HttpClient:
    """Makes HTTP(S) requests with one overall deadline, a size limit, manual redirects and an optional SSRF guard."""

    def __init__(
        self,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_redirects: int = MAX_REDIRECTS,
        policy: AddressPolicy | None = None,
        user_agent: str = USER_AGENT,
    ) -> None:
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.max_redirects = max_redirects
        self.policy = policy
        self.user_agent = user_agent

    def get(
        self, url: str, *, params: Mapping[str, Any] | None = None, headers: Mapping[str, str] | None = None
    ) -> Response:
        """GET ``url`` (with ``params`` in the query string)."""
        return self.request("GET", with_params(url, params), headers=headers)

    def post_json(self, url: str, payload: Any, *, headers: Mapping[str, str] | None = None) -> Response:
        """POST ``payload`` as a JSON body."""
        body = json.dumps(payload).encode()
        return self.request("POST", url, headers={"Content-Type": "application/json", **(headers or {})}, body=body)

    def post_form(self, url: str, form: Mapping[str, str], *, headers: Mapping[str, str] | None = None) -> Response:
        """POST ``form`` url-encoded, as a browser submits a form."""
        body = urlencode(form).encode()
        content_type = {"Content-Type": "application/x-www-form-urlencoded"}
        return self.request("POST", url, headers={**content_type, **(headers or {})}, body=body)

    def request(
        self, method: str, url: str, *, headers: Mapping[str, str] | None = None, body: bytes | None = None
    ) -> Response:
        """Send one request and follow redirects; HttpStatusError for 4xx/5xx, other HttpErrors for failures."""
        deadline = _Deadline(self.timeout)
        headers = dict(headers or {})
        redirects: list[str] = []
        target = parse_url(url)
        while True:
            response = self._exchange(method, target, headers, body, deadline)
            location = response.headers.get("location")
            if response.status not in _REDIRECTS or not location:
                break
            if len(redirects) >= self.max_redirects:
                raise BadResponse(f"{target.host} redirected more than {self.max_redirects} times")
            following = parse_url(urljoin(target.url, location))
            if following.origin != target.origin:
                headers = {k: v for k, v in headers.items() if k.lower() in ("accept", "accept-language")}
            if response.status == 303 or (response.status in (301, 302) and method == "POST"):
                method, body = "GET", None
                headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
            redirects.append(following.url)
            target = following
        response = replace(response, redirects=tuple(redirects))
        if response.status >= 400:
            raise _status_error(target.host, response)
        return response

    def _exchange(
        self, method: str, target: Target, headers: dict[str, str], body: bytes | None, deadline: _Deadline
    ) -> Response:
        addresses = resolve(target.host, target.port, deadline.left(target.host))
        if self.policy is not None:
            self.policy.check(target.host, addresses)
        conn = _connection(target, addresses, deadline.left(target.host))
        try:
            conn.request(method, target.path, body=body, headers=self._headers(headers))
            reply = conn.getresponse()
            status, reason = reply.status, reply.reason
            reply_headers = {name.lower(): value for name, value in reply.getheaders()}
            if status in _REDIRECTS and "location" in reply_headers:
                data, truncated = b"", False  # followed, never shown
            else:
                data, truncated = _read_body(conn, reply, deadline, self.max_bytes, target.host)
        except HttpError:
            raise
        except Exception as exc:
            raise _translate(exc, target, deadline) from None
        finally:
            conn.close()
        return Response(target.url, status, reason, reply_headers, data, truncated)

    def _headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        base = {"User-Agent": self.user_agent, "Accept": "*/*", "Accept-Encoding": "gzip", "Connection": "close"}
        lower = {k.lower() for k in headers}
        return {**{k: v for k, v in base.items() if k.lower() not in lower}, **headers}


class _Deadline:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def left(self, host: str) -> float:
        remaining = self.end - time.monotonic()
        if remaining <= 0:
            raise HttpTimeout(f"no answer from {host} within {self.seconds:g} s")
        return remaining


def open_socket(addresses: Sequence[str], port: int, timeout: float | None) -> socket.socket:
    """A TCP connection to the first of ``addresses`` that accepts one (the addresses are already checked)."""
    error: OSError = OSError("no address to connect to")
    for address in addresses:
        try:
            return socket.create_connection((address, port), timeout=timeout)
        except OSError as exc:
            error = exc
    raise error


class _PinnedHTTP(http.client.HTTPConnection):
    """An HTTP connection to an already resolved (and checked) address, never to a fresh DNS answer."""

    def __init__(self, host: str, port: int, *, addresses: Sequence[str], timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.addresses = addresses
        self.raw_socket: socket.socket | None = None

    def connect(self) -> None:
        self.sock = self.raw_socket = open_socket(self.addresses, self.port, self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    """An HTTPS connection to an already resolved address; the certificate is still verified for the host name."""

    def __init__(self, host: str, port: int, *, addresses: Sequence[str], timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self.addresses = addresses
        self.raw_socket: socket.socket | None = None

    def connect(self) -> None:
        sock = open_socket(self.addresses, self.port, self.timeout)
        self.sock = self.raw_socket = self._context.wrap_socket(sock, server_hostname=self.host)  # pyright: ignore[reportAttributeAccessIssue]  # http.client keeps it private


def _connection(target: Target, addresses: Sequence[str], timeout: float) -> _PinnedHTTP | _PinnedHTTPS:
    kind = _PinnedHTTPS if target.scheme == "https" else _PinnedHTTP
    return kind(target.host, target.port, addresses=addresses, timeout=timeout)


def _read_body(
    conn: _PinnedHTTP | _PinnedHTTPS, reply: http.client.HTTPResponse, deadline: _Deadline, limit: int, host: str
) -> tuple[bytes, bool]:
    decoder = _Decoder(reply.getheader("content-encoding"), host)
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        if conn.raw_socket is not None:
            conn.raw_socket.settimeout(deadline.left(host))
        raw = reply.read1(_CHUNK)
        if not raw:
            break
        data = decoder.feed(raw, limit - size + 1)
        chunks.append(data)
        size += len(data)
    body = b"".join(chunks)
    return body[:limit], size > limit


class _Decoder:
    """Undoes gzip/deflate content encoding without ever producing more than asked for (no zip bombs)."""

    def __init__(self, encoding: str | None, host: str) -> None:
        name = (encoding or "identity").strip().lower()
        self.host = host
        if name in ("gzip", "x-gzip"):
            self.inflater: Any = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif name == "deflate":
            self.inflater = zlib.decompressobj()
        elif name in ("identity", ""):
            self.inflater = None
        else:
            raise BadResponse(f"{host} sent an answer in an unsupported encoding ({encoding})")

    def feed(self, data: bytes, most: int) -> bytes:
        if self.inflater is None:
            return data
        try:
            return bytes(self.inflater.decompress(data, max(1, most)))
        except zlib.error:
            raise BadResponse(f"{self.host} sent a corrupt compressed answer") from None


def _status_error(host: str, response: Response) -> HttpStatusError:
    detail = _error_detail(response.body)
    message = f"{host} answered HTTP {response.status} {response.reason}".rstrip()
    return HttpStatusError(f"{message}: {detail}" if detail else message, status=response.status, body=response.body)


def _error_detail(body: bytes) -> str:
    """The human part of a JSON error body ({"reason": ...}, {"error": {"message": ...}}, ...), if any."""
    try:
        data = json_limits.loads(body)
    except (ValueError, UnicodeDecodeError):
        return ""
    for _ in range(3):
        if not isinstance(data, dict):
            break
        value = next((data[k] for k in ("reason", "message", "detail", "error") if data.get(k) not in (None, True)), "")
        if isinstance(value, str):
            return " ".join(value.split())[:300]
        data = value
    return ""


def _translate(exc: Exception, target: Target, deadline: _Deadline) -> HttpError:
    where = f"{target.host}:{target.port}"
    if isinstance(exc, TimeoutError):
        return HttpTimeout(f"no answer from {target.host} within {deadline.seconds:g} s")
    if isinstance(exc, ssl.SSLCertVerificationError):
        return NetworkError(f"the TLS certificate of {target.host} could not be verified ({exc.verify_message})")
    if isinstance(exc, ssl.SSLError):
        return NetworkError(f"TLS handshake with {where} failed ({exc.reason or exc})")
    if isinstance(exc, ConnectionRefusedError):
        return NetworkError(f"no network connection (connection to {where} refused)")
    if isinstance(exc, http.client.HTTPException | ConnectionResetError | BrokenPipeError):
        return BadResponse(f"{target.host} broke off or sent a malformed HTTP answer ({type(exc).__name__})")
    if isinstance(exc, OSError):
        return NetworkError(f"no network connection (cannot reach {where}: {os_reason(exc)})")
    raise exc
