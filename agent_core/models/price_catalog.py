"""List prices from the maintained ``genai-prices`` catalogue: a model's price at a date, at a provider.

The provider is found from the endpoint's base URL (``https://api.deepseek.com`` → DeepSeek) or, with no
endpoint, from the model name. A model the endpoint's provider does not list, an endpoint whose provider the
catalogue does not know (a gateway, a proxy), and an endpoint on this machine or a private network (Ollama,
vLLM, llama.cpp...) have no list price: their models stay unknown rather than being priced as a hosted model of
the same name elsewhere.
"""

from __future__ import annotations

import importlib
import ipaddress
import time
from datetime import UTC, datetime
from functools import cache
from typing import Any
from urllib.parse import urlsplit

CATALOGUE = "genai-prices"
"""The distribution the prices come from (its snapshot ships with it: no network at lookup time)."""


def catalogue_version() -> str:
    """The installed ``genai-prices`` version, or ``""`` when it is not installed."""
    try:
        return str(_genai_prices().__version__)
    except ImportError:
        return ""


@cache
def _genai_prices() -> Any:
    return importlib.import_module("genai_prices")


def is_local(endpoint: str | None) -> bool:
    """True for an endpoint on this machine or a private network, where no list price applies."""
    host = urlsplit(endpoint or "").hostname or ""
    if host in ("localhost", "") or host.endswith((".local", ".internal", ".localhost")):
        return bool(endpoint)
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_private or address.is_loopback or address.is_link_local


SLOT_SECONDS = 1800
"""Prices are looked up per half hour of the call's time: some change by time of day (DeepSeek's off-peak hours)."""


def _slot(at: float | None) -> int:
    return int((time.time() if at is None else at) // SLOT_SECONDS)


@cache
def model_price(model: str, endpoint: str | None, slot: int) -> Any | None:
    """genai-prices' ``ModelPrice`` of ``model`` at ``endpoint`` in half hour ``slot``, or None when it has none."""
    if is_local(endpoint):
        return None
    try:
        genai = _genai_prices()
    except ImportError:
        return None
    when = datetime.fromtimestamp(slot * SLOT_SECONDS, UTC)
    try:
        found = genai.calc_price(genai.Usage(), model, provider_api_url=endpoint, genai_request_timestamp=when)
    except LookupError:  # no such provider for the URL, or it does not list the model: unknown, never a guess
        return None
    return found.model_price


def provider_id(endpoint: str | None) -> str | None:
    """The catalogue's id of the provider at ``endpoint`` (``deepseek``), or None: local, unknown or not given."""
    if not endpoint or is_local(endpoint):
        return None
    try:
        return str(_genai_prices().data_snapshot.get_snapshot().find_provider(None, None, endpoint).id)
    except (ImportError, LookupError):
        return None


def catalogue_cost(model: str, endpoint: str | None, at: float | None, tokens: dict[str, int]) -> float | None:
    """USD cost of ``tokens`` (genai-prices usage keys) for ``model``, or None when the catalogue has no price."""
    price = model_price(model.strip().lower(), endpoint, _slot(at))
    if price is None:
        return None
    return float(price.calc_price(_genai_prices().Usage(**tokens))["total_price"])


def per_million(model: str, endpoint: str | None, at: float | None = None) -> dict[str, float] | None:
    """USD per million tokens of ``model``: ``input``, ``output`` and ``cached_input``; None when unknown."""
    price = model_price(model.strip().lower(), endpoint, _slot(at))
    if price is None:
        return None
    rates = {"input": price.input_mtok, "output": price.output_mtok, "cached_input": price.cache_read_mtok}
    return {name: float(getattr(rate, "base", rate)) for name, rate in rates.items() if rate is not None}
