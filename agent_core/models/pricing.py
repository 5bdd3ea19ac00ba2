"""Model prices (USD per million tokens) and the cost of token usage; an unknown model costs ``None``, never a guess.

List prices come from the maintained ``genai-prices`` catalogue (imported on first need: it takes about a second):
the price in force at the time of each model call, at the provider its endpoint's base URL names
(``https://api.deepseek.com`` → DeepSeek) or, with no endpoint, the provider the model name points to. A model the
endpoint's provider does not list, an endpoint the catalogue does not know (a gateway, a proxy) and an endpoint on
this machine or a private network (Ollama, vLLM, llama.cpp...) have no list price, rather than the price of a
hosted model of the same name. A run is priced at the endpoint its ``RunStarted`` recorded (``PriceTable.for_run``,
the one place that decides it). Cached input tokens are priced at the cached-input rate, reasoning tokens as output.
Overrides come from ``price_table({...})`` or ``SPARROW_PRICES``, e.g. ``'{"my-model": {"input": 0.5, "output":
1.5}, "gpt-4o": null}'`` (``null`` makes a model unknown; ``"cached_input"`` defaults to the input price), and apply
at every endpoint: ``{"input": 0, "output": 0}`` prices a local model at nothing instead of "—".
"""

from __future__ import annotations

import dataclasses
import importlib
import ipaddress
import json
import math
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

from agent_core.env_settings import env_settings
from agent_core.events import ModelSampled, RunStarted, Usage

PRICES_ENV = "SPARROW_PRICES"
"""Environment variable holding a JSON object of price overrides."""
PRICE_KEYS = frozenset({"input", "output", "cached_input"})
"""The keys of a price override object."""


class PricingError(ValueError):
    """A price override is malformed; the message names the model and the problem."""


@dataclass(frozen=True, slots=True)
class Price:
    """The list price of one model."""

    input: float
    """USD per million prompt (input) tokens."""
    output: float
    """USD per million completion (output) tokens, reasoning tokens included."""
    cached_input: float | None = None
    """USD per million prompt tokens read from the provider's cache; None: the input price."""

    def __post_init__(self) -> None:
        for name in ("input", "output", "cached_input"):
            value = getattr(self, name)
            if name == "cached_input" and value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise PricingError(f"{name} price must be a finite number ≥ 0, got {value!r}")

    def cost(self, usage: Usage) -> float:
        """USD cost of ``usage`` at this price (its cached prompt tokens at the cached-input rate)."""
        cached_rate = self.input if self.cached_input is None else self.cached_input
        fresh = (usage.prompt_tokens - usage.cached_tokens) * self.input + usage.cached_tokens * cached_rate
        return (fresh + usage.completion_tokens * self.output) / 1_000_000


_SNAPSHOT = re.compile(r"^(?P<base>.+)-\d{4}-\d{2}-\d{2}$")
"""An override for a model also prices its dated snapshots (``gpt-4o-mini-2024-07-18``) unless they have one."""


@dataclass(frozen=True)
class PriceTable:
    """Prices by model name: overrides first, then the catalogue; ``cost()`` is None for a model neither knows."""

    prices: Mapping[str, Price] = field(default_factory=lambda: MappingProxyType({}))
    """Overrides: model name (lower case) → price."""
    removed: frozenset[str] = frozenset()
    """Models made unknown by an override of ``null``."""
    endpoint: str | None = None
    """The base URL the models are called at, naming the provider whose prices apply; None: found by model."""

    def lookup(self, model: str | None, at: float | None = None) -> Price | None:
        """The price of ``model`` on the day of Unix time ``at`` (today when None), or None when unknown."""
        name = (model or "").strip().lower()
        if not name or name in self.removed:
            return None
        if (price := self._override(name)) is not None:
            return price
        rates = per_million(name, self.endpoint, at)
        if rates is None or not {"input", "output"} <= rates.keys():
            return None
        return Price(rates["input"], rates["output"], rates.get("cached_input"))

    def cost(self, usage: Usage, model: str | None, at: float | None = None) -> float | None:
        """USD cost of ``usage`` with ``model`` for a call made at Unix time ``at``, or None when unknown."""
        name = (model or "").strip().lower()
        if not name or name in self.removed:
            return None
        if (price := self._override(name)) is not None:
            return price.cost(usage)
        tokens = {"input_tokens": usage.prompt_tokens, "output_tokens": usage.completion_tokens}
        if usage.cached_tokens:
            tokens["cache_read_tokens"] = usage.cached_tokens
        return catalogue_cost(name, self.endpoint, at, tokens)

    def _override(self, name: str) -> Price | None:
        price = self.prices.get(name)
        if price is None and (match := _SNAPSHOT.match(name)):
            price = self.prices.get(match["base"])
        return price

    def with_overrides(self, overrides: Mapping[str, Any]) -> PriceTable:
        """A new table: ``overrides`` (name → Price, ``{"input", "output"[, "cached_input"]}``, ``[in, out]``
        or None) on top."""
        merged, removed = dict(self.prices), set(self.removed)
        for name, value in overrides.items():
            key = str(name).strip().lower()
            if value is None:
                merged.pop(key, None)
                removed.add(key)
            else:
                merged[key] = _as_price(key, value)
                removed.discard(key)
        return dataclasses.replace(self, prices=MappingProxyType(merged), removed=frozenset(removed))

    def for_endpoint(self, endpoint: str | None) -> PriceTable:
        """The same table for models called at ``endpoint`` (a base URL)."""
        return dataclasses.replace(self, endpoint=endpoint or None)

    def for_run(self, started: RunStarted | ModelSampled | None) -> PriceTable:
        """The table a run is priced with: at the endpoint its ``RunStarted`` recorded (None: by model name).

        Only the run's own record decides, so the same run costs the same wherever it is shown. A what-if
        sample (``ModelSampled``) records its own endpoint: it may have been asked elsewhere than its run.
        """
        return self.for_endpoint(started.endpoint if started is not None else None)

    def known_models(self) -> list[str]:
        """Names of the models with an override price, sorted."""
        return sorted(self.prices)


DEFAULT_TABLE = PriceTable()
"""The catalogue's list prices, without any override."""


def price_table(overrides: Mapping[str, Any] | None = None) -> PriceTable:
    """The catalogue prices with ``overrides`` applied (e.g. from the app's settings)."""
    return DEFAULT_TABLE.with_overrides(overrides or {})


def parse_prices(text: str) -> dict[str, Price | None]:
    """Parse a JSON object of overrides: ``{"model": {"input": 0.5, "output": 1.5} | [0.5, 1.5] | null}``."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PricingError(f"prices are not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    if not isinstance(data, dict):
        raise PricingError(f"prices must be a JSON object of model → price, got {type(data).__name__}")
    return {str(name): None if value is None else _as_price(str(name), value) for name, value in data.items()}


def prices_from_env(environ: Mapping[str, str] | None = None) -> PriceTable:
    """The catalogue prices with the overrides of ``$SPARROW_PRICES`` (if set) applied."""
    text = env_settings(environ).sparrow_prices or ""
    if not text:
        return DEFAULT_TABLE
    try:
        return price_table(parse_prices(text))
    except PricingError as exc:
        raise PricingError(f"{PRICES_ENV}: {exc}") from None


def env_prices_or_catalogue(environ: Mapping[str, str] | None = None) -> PriceTable:
    """``prices_from_env``, or the catalogue alone when ``$SPARROW_PRICES`` is malformed (for code that runs on
    without a terminal or a page to say so: live export, experiment workers; the CLI and the app report it)."""
    try:
        return prices_from_env(environ)
    except PricingError:
        return DEFAULT_TABLE


def _as_price(model: str, value: Any) -> Price:
    try:
        if isinstance(value, Price):
            return value
        if isinstance(value, Mapping):
            if set(value) - PRICE_KEYS or not {"input", "output"} <= set(value):
                raise PricingError(f"expected keys 'input' and 'output' (and 'cached_input'), got {sorted(value)}")
            return Price(value["input"], value["output"], value.get("cached_input"))
        if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
            pair = list(value)
            if len(pair) != 2:
                raise PricingError(f"expected [input, output], got {len(pair)} values")
            return Price(pair[0], pair[1])
        raise PricingError(f"expected {{'input': ..., 'output': ...}} or [input, output], got {value!r}")
    except PricingError as exc:
        raise PricingError(f"price of {model!r}: {exc}") from None


# --- the genai-prices catalogue ------------------------------------------------------------------------------------


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
