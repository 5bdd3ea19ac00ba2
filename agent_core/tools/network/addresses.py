"""Where a request may connect: the address policy (SSRF guard) and name resolution that cannot hang."""

from __future__ import annotations

import ipaddress
import re
import socket
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from agent_core.tools.network.http_errors import BlockedAddress, HttpTimeout, NetworkError, os_reason

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
