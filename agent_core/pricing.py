"""Model prices (USD per million tokens) and the cost of token usage; unknown models cost ``None``, never a guess.

The defaults below are the providers' public list prices for standard (non-batch, non-cached) input and
output tokens as known in 2025. Prices drift and vary by region, tier and date: override them with
``price_table({...})`` or the ``SPARROW_PRICES`` environment variable, e.g.
``SPARROW_PRICES='{"my-model": {"input": 0.5, "output": 1.5}, "gpt-4o": null}'`` (``null`` makes a
default unknown again). Cached-input discounts are not modelled, so where a provider applied one the
real bill is lower than the figure shown. Local models (Ollama, vLLM, llama.cpp...) have no default
price: their cost is unknown (shown as "—") until one is configured, e.g. ``{"input": 0, "output": 0}``.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from agent_core.events import Usage

PRICES_ENV = "SPARROW_PRICES"
"""Environment variable holding a JSON object of price overrides."""
PRICES_AS_OF = "2025"
"""When the default list prices were last checked by hand."""


class PricingError(ValueError):
    """A price override is malformed; the message names the model and the problem."""


@dataclass(frozen=True, slots=True)
class Price:
    """The list price of one model."""

    input: float
    """USD per million prompt (input) tokens."""
    output: float
    """USD per million completion (output) tokens."""

    def __post_init__(self) -> None:
        for name in ("input", "output"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise PricingError(f"{name} price must be a finite number ≥ 0, got {value!r}")

    def cost(self, usage: Usage) -> float:
        """USD cost of ``usage`` at this price."""
        return (usage.prompt_tokens * self.input + usage.completion_tokens * self.output) / 1_000_000


_DEFAULTS: dict[str, tuple[float, float]] = {
    # OpenAI (platform.openai.com/docs/pricing, standard tier)
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-2024-05-13": (5.00, 15.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4-turbo": (10.00, 30.00),
    "gpt-4": (30.00, 60.00),
    "gpt-3.5-turbo": (0.50, 1.50),
    "o1": (15.00, 60.00),
    "o1-mini": (1.10, 4.40),
    "o3": (2.00, 8.00),
    "o3-mini": (1.10, 4.40),
    "o3-pro": (20.00, 80.00),
    "o4-mini": (1.10, 4.40),
    # DeepSeek (api-docs.deepseek.com, cache-miss input; V3.2 prices, both names serve the same model)
    "deepseek-chat": (0.28, 0.42),
    "deepseek-reasoner": (0.28, 0.42),
    # Qwen on Alibaba Cloud Model Studio, international (USD) list prices; mainland China prices differ
    "qwen-max": (1.60, 6.40),
    "qwen-plus": (0.40, 1.20),
    "qwen-turbo": (0.05, 0.20),
    # Moonshot AI (platform.moonshot.ai, USD)
    "moonshot-v1-8k": (0.20, 2.00),
    "moonshot-v1-32k": (1.00, 3.00),
    "moonshot-v1-128k": (2.00, 5.00),
}

DEFAULT_PRICES: Mapping[str, Price] = MappingProxyType({name: Price(*p) for name, p in _DEFAULTS.items()})
"""Built-in list prices by model name (lower case)."""

_SNAPSHOT = re.compile(r"^(?P<base>.+)-\d{4}-\d{2}-\d{2}$")
"""A snapshot dated YYYY-MM-DD (``gpt-4o-mini-2024-07-18``) is priced as its base model; snapshots whose list
price differs (``gpt-4o-2024-05-13``) have their own entry. Older ``-0613``-style names are not matched:
several of them had other prices, so they stay unknown rather than guessed."""


@dataclass(frozen=True)
class PriceTable:
    """Prices by model name; ``cost()`` returns None for a model it does not know."""

    prices: Mapping[str, Price] = field(default_factory=lambda: DEFAULT_PRICES)
    """Model name (lower case) → price."""

    def lookup(self, model: str | None) -> Price | None:
        """The price of ``model``: an exact (case-insensitive) match, else its dated snapshot's base model."""
        if not model:
            return None
        name = model.strip().lower()
        price = self.prices.get(name)
        if price is None and (match := _SNAPSHOT.match(name)):
            price = self.prices.get(match["base"])
        return price

    def cost(self, usage: Usage, model: str | None) -> float | None:
        """USD cost of ``usage`` with ``model``, or None when its price is unknown."""
        price = self.lookup(model)
        return None if price is None else price.cost(usage)

    def with_overrides(self, overrides: Mapping[str, Any]) -> PriceTable:
        """A new table: ``overrides`` (name → Price, ``{"input", "output"}``, ``[in, out]`` or None) on top."""
        merged = dict(self.prices)
        for name, value in overrides.items():
            key = str(name).strip().lower()
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = _as_price(key, value)
        return PriceTable(MappingProxyType(merged))

    def known_models(self) -> list[str]:
        """Names of the models with a price, sorted."""
        return sorted(self.prices)


DEFAULT_TABLE = PriceTable()
"""The built-in list prices, without any override."""


def price_table(overrides: Mapping[str, Any] | None = None) -> PriceTable:
    """The default prices with ``overrides`` applied (e.g. from the app's settings)."""
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
    """The default prices with the overrides of ``$SPARROW_PRICES`` (if set) applied."""
    text = (os.environ if environ is None else environ).get(PRICES_ENV, "").strip()
    if not text:
        return DEFAULT_TABLE
    try:
        return price_table(parse_prices(text))
    except PricingError as exc:
        raise PricingError(f"{PRICES_ENV}: {exc}") from None


def _as_price(model: str, value: Any) -> Price:
    try:
        if isinstance(value, Price):
            return value
        if isinstance(value, Mapping):
            unknown = set(value) - {"input", "output"}
            if unknown or not {"input", "output"} <= set(value):
                raise PricingError(f"expected keys 'input' and 'output', got {sorted(value)}")
            return Price(value["input"], value["output"])
        if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
            pair = list(value)
            if len(pair) != 2:
                raise PricingError(f"expected [input, output], got {len(pair)} values")
            return Price(pair[0], pair[1])
        raise PricingError(f"expected {{'input': ..., 'output': ...}} or [input, output], got {value!r}")
    except PricingError as exc:
        raise PricingError(f"price of {model!r}: {exc}") from None
