"""Test-wide safety: no test may reach a non-local host, and no real credentials leak in from the environment."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

import pytest
import streamlit as st

pytest_plugins = ["tests.postgres"]  # a real PostgreSQL: db_url / file_db_url run a test on both backends

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo
_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


class NetworkBlocked(BaseException):
    """Raised when a test tries to reach a host other than this machine.

    A BaseException, so that no ``except Exception`` in the code under test can swallow it.
    """


def _is_local(host: Any) -> bool:
    if host is None:
        return True
    host = host.decode() if isinstance(host, bytes) else str(host)
    if host in _LOCAL_NAMES or host == "":
        return True
    try:
        address = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def _check(address: Any) -> None:
    if isinstance(address, tuple) and address and not _is_local(address[0]):
        raise NetworkBlocked(f"test tried to reach non-local host {address[0]!r}: tests must stay on 127.0.0.1")


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    _check(address)
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> Any:
    _check(address)
    return _real_connect_ex(self, address)


def _guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if not _is_local(host):
        raise NetworkBlocked(f"test tried to resolve non-local host {host!r}: tests must stay on 127.0.0.1")
    return _real_getaddrinfo(host, *args, **kwargs)


@pytest.fixture(autouse=True, scope="session")
def _block_network() -> Iterator[None]:
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = _guarded_getaddrinfo
    yield
    socket.socket.connect = _real_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _real_connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = _real_getaddrinfo


_ENVIRONMENT_TO_CLEAR = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "SPARROW_MODEL",
    "SPARROW_PRICES",
    "SPARROW_TOOLS",
    "SPARROW_SEARCH_PROVIDER",
    "TAVILY_API_KEY",
    "BRAVE_API_KEY",
    "DATABASE_URL",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "SPARROW_MCP_CONFIG",
)


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    for name in _ENVIRONMENT_TO_CLEAR:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SPARROW_DATA_DIR", str(tmp_path_factory.mktemp("sparrow-data")))


@pytest.fixture(autouse=True)
def _fresh_resources() -> Iterator[None]:
    """Every test (AppTests anywhere) gets its own store and live-run registry, not a cached one of another."""
    st.cache_resource.clear()
    yield
    st.cache_resource.clear()
