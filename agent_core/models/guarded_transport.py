"""An HTTP transport for the model client that checks every address it connects to (SSRF and DNS rebinding).

A base URL typed by a user of a shared deployment must not reach the server's own loopback, private or
link-local addresses. Checking the name when it is typed is not enough: the name may resolve elsewhere by the
time a request goes (DNS rebinding). Here the check happens at connect time, inside httpcore2's network backend:
the host is resolved, every address is checked against the ``AddressPolicy`` of the web tools, and the socket
goes to exactly the address that was checked (TLS still verifies the host name, which httpcore passes apart).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import httpcore2
import httpx2

from agent_core.tools.network.http import AddressPolicy, HttpError, resolve

CONNECT_TIMEOUT_S = 10.0
"""Longest name lookup when the client gives no connect timeout."""


class RefusedEndpoint(httpcore2.ConnectError):
    """The endpoint's address is not one this deployment lets a user-typed URL reach."""


class GuardedBackend(httpcore2.SyncBackend):
    """httpcore2's socket backend, resolving and checking the host before it connects to the checked address."""

    def __init__(self, policy: AddressPolicy) -> None:
        self.policy = policy

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.NetworkStream:
        """Connect to ``host`` only if every address it resolves to is allowed (to the first of them)."""
        try:
            addresses = resolve(host, port, timeout or CONNECT_TIMEOUT_S)
            self.policy.check(host, addresses)
        except HttpError as exc:
            raise RefusedEndpoint(str(exc)) from None
        return super().connect_tcp(addresses[0], port, timeout, local_address, socket_options)


class GuardedTransport(httpx2.HTTPTransport):
    """The openai client's ``httpx2.HTTPTransport``, its pool connecting through a ``GuardedBackend`` (no proxy)."""

    def __init__(self, policy: AddressPolicy) -> None:
        super().__init__(trust_env=False)
        self._pool = httpcore2.ConnectionPool(
            ssl_context=httpx2.create_ssl_context(trust_env=False),
            max_connections=100,
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
            network_backend=GuardedBackend(policy),
        )
