"""Price table: defaults, lookups, overrides from settings and SPARROW_PRICES; unknown means None."""

from __future__ import annotations

import re

import pytest

from agent_core.events import Usage
from agent_core.pricing import (
    DEFAULT_PRICES,
    DEFAULT_TABLE,
    Price,
    PricingError,
    parse_prices,
    price_table,
    prices_from_env,
)


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4o-mini", Price(0.15, 0.60)),
        ("GPT-4o-mini", Price(0.15, 0.60)),
        (" gpt-4o ", Price(2.50, 10.00)),
        ("gpt-4o-mini-2024-07-18", Price(0.15, 0.60)),
        ("gpt-4o-2024-08-06", Price(2.50, 10.00)),
        ("gpt-4o-2024-05-13", Price(5.00, 15.00)),
        ("gpt-4.1-nano", Price(0.10, 0.40)),
        ("o4-mini", Price(1.10, 4.40)),
        ("deepseek-reasoner", Price(0.28, 0.42)),
        ("qwen-plus", Price(0.40, 1.20)),
        ("moonshot-v1-128k", Price(2.00, 5.00)),
        ("gpt-3.5-turbo-0613", None),
        ("llama3:8b", None),
        ("qwen2.5:7b", None),
        ("scripted", None),
        ("", None),
        (None, None),
    ],
)
def test_lookup(model: str | None, expected: Price | None) -> None:
    assert DEFAULT_TABLE.lookup(model) == expected


def test_defaults_cover_the_common_hosted_models_and_no_local_ones() -> None:
    expected = {
        "gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano", "o1", "o3", "o3-mini", "o4-mini",
        "deepseek-chat", "deepseek-reasoner", "qwen-plus", "qwen-max", "qwen-turbo",
        "moonshot-v1-8k", "moonshot-v1-32k", "moonshot-v1-128k",
    }  # fmt: skip
    assert expected <= set(DEFAULT_PRICES)
    assert not [name for name in DEFAULT_PRICES if ":" in name or name.startswith(("llama", "mistral", "phi"))]
    assert all(p.input > 0 and p.output >= p.input for p in DEFAULT_PRICES.values())


def test_cost_of_usage() -> None:
    assert DEFAULT_TABLE.cost(Usage(2_000_000, 500_000), "gpt-4o") == pytest.approx(2 * 2.50 + 0.5 * 10.00)
    assert DEFAULT_TABLE.cost(Usage(2_000_000, 500_000), "my-finetune") is None
    assert DEFAULT_TABLE.cost(Usage(), "gpt-4o") == 0.0


def test_overrides_add_replace_and_remove_prices() -> None:
    table = price_table(
        {"My-Local": {"input": 0, "output": 0}, "gpt-4o": [1.0, 4.0], "gpt-4o-mini": None, "x": Price(1, 1)}
    )
    assert (table.lookup("my-local"), table.lookup("gpt-4o"), table.lookup("gpt-4o-mini")) == (
        Price(0, 0),
        Price(1.0, 4.0),
        None,
    )
    assert table.cost(Usage(1000, 1000), "my-local") == 0.0
    assert DEFAULT_TABLE.lookup("gpt-4o-mini") == Price(0.15, 0.60)  # the defaults are untouched
    assert "my-local" in table.known_models() and "gpt-4o-mini" not in table.known_models()


def test_parse_prices_accepts_objects_pairs_and_null() -> None:
    assert parse_prices('{"a": {"input": 1.5, "output": 2}, "b": [0.1, 0.2], "c": null}') == {
        "a": Price(1.5, 2),
        "b": Price(0.1, 0.2),
        "c": None,
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "prices are not valid JSON: Expecting property name enclosed in double quotes"),
        ("[1, 2]", "prices must be a JSON object of model → price, got list"),
        ('{"m": {"input": 1}}', "price of 'm': expected keys 'input' and 'output', got ['input']"),
        ('{"m": {"input": 1, "output": 2, "cached": 0.5}}', "price of 'm': expected keys 'input' and 'output'"),
        ('{"m": [1, 2, 3]}', "price of 'm': expected [input, output], got 3 values"),
        ('{"m": [-1, 2]}', "price of 'm': input price must be a finite number ≥ 0, got -1"),
        ('{"m": ["1", 2]}', "price of 'm': input price must be a finite number ≥ 0, got '1'"),
        ('{"m": [true, 2]}', "price of 'm': input price must be a finite number ≥ 0, got True"),
        ('{"m": 3}', "price of 'm': expected"),
        ('{"m": "cheap"}', "price of 'm': expected"),
    ],
)
def test_parse_prices_rejects_bad_input_naming_the_problem(text: str, message: str) -> None:
    with pytest.raises(PricingError, match=re.escape(message)):
        parse_prices(text)


def test_prices_from_env() -> None:
    assert prices_from_env({}) is DEFAULT_TABLE
    assert prices_from_env({"SPARROW_PRICES": "  "}) is DEFAULT_TABLE
    table = prices_from_env({"SPARROW_PRICES": '{"llama3:8b": [0, 0], "gpt-4o": null}'})
    assert (table.lookup("llama3:8b"), table.lookup("gpt-4o")) == (Price(0, 0), None)
    with pytest.raises(PricingError, match=r"^SPARROW_PRICES: price of 'x'"):
        prices_from_env({"SPARROW_PRICES": '{"x": [1]}'})


def test_prices_from_env_reads_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPARROW_PRICES", '{"house-model": {"input": 0.5, "output": 1.5}}')
    assert prices_from_env().lookup("house-model") == Price(0.5, 1.5)
