"""Price table: defaults, lookups, overrides from settings and SPARROW_PRICES; unknown means None."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from agent_core.events import Usage
from agent_core.models.pricing import (
    DEFAULT_TABLE,
    Price,
    PricingError,
    parse_prices,
    price_table,
    prices_from_env,
)

JUNE_2025 = datetime(2025, 6, 2, 10, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ("model", "endpoint", "expected"),
    [
        ("gpt-4o-mini", None, Price(0.15, 0.60, 0.075)),
        ("GPT-4o-mini", "https://api.openai.com/v1", Price(0.15, 0.60, 0.075)),
        (" gpt-4o ", None, Price(2.50, 10.00, 1.25)),
        ("gpt-4o-mini-2024-07-18", None, Price(0.15, 0.60, 0.075)),
        ("gpt-4.1-nano", None, Price(0.10, 0.40, 0.025)),
        ("deepseek-chat", "https://api.deepseek.com", Price(0.27, 1.10, 0.07)),
        ("gpt-4o-mini", "http://127.0.0.1:11434/v1", None),
        ("gpt-4o-mini", "http://localhost:8080/v1", None),
        ("gpt-4o-mini", "http://192.168.1.20:8000/v1", None),
        ("llama3:8b", None, None),
        ("qwen2.5:7b", None, None),
        ("scripted", None, None),
        ("", None, None),
        (None, None, None),
    ],
)
def test_lookup_in_the_catalogue(model: str | None, endpoint: str | None, expected: Price | None) -> None:
    assert DEFAULT_TABLE.for_endpoint(endpoint).lookup(model, JUNE_2025) == expected


@pytest.mark.parametrize(
    ("endpoint", "expected"),
    [
        ("https://api.openai.com/v1", Price(0.15, 0.60, 0.075)),  # OpenAI's list price
        ("https://api.deepseek.com/v1", None),  # DeepSeek does not serve it: not OpenAI's price either
        ("https://llm-gateway.example.com/v1", None),  # a gateway the catalogue does not know: no guess
        ("http://127.0.0.1:11434/v1", None),  # a local server has no list price
    ],
)
def test_the_same_model_name_is_priced_by_the_endpoint_it_was_called_at(endpoint: str, expected: Price | None) -> None:
    table = DEFAULT_TABLE.for_endpoint(endpoint)
    assert table.lookup("gpt-4o-mini", JUNE_2025) == expected
    assert (table.cost(Usage(1_000_000, 1_000_000), "gpt-4o-mini", JUNE_2025) is None) == (expected is None)


def test_one_model_at_two_providers_costs_what_each_charges() -> None:
    """GLM-4.5-Air from Z.ai (international) and from Zhipu's own BigModel platform in China: two list prices."""
    september = datetime(2025, 9, 1, 10, tzinfo=UTC).timestamp()
    zai = DEFAULT_TABLE.for_endpoint("https://api.z.ai/api/paas/v4")
    zhipu = DEFAULT_TABLE.for_endpoint("https://open.bigmodel.cn/api/paas/v4")
    assert zai.lookup("glm-4.5-air", september) == Price(0.2, 1.1, 0.03)
    assert zhipu.lookup("GLM-4.5-Air", september) == Price(0.11, 0.276, 0.022)
    assert DEFAULT_TABLE.for_endpoint("https://api.openai.com/v1").lookup("glm-4.5-air", september) is None


def test_an_override_prices_a_model_at_every_endpoint() -> None:
    table = price_table({"gpt-4o-mini": [1.0, 2.0]}).for_endpoint("http://127.0.0.1:8000/v1")
    assert table.cost(Usage(1_000_000, 1_000_000), "gpt-4o-mini") == pytest.approx(3.0)


def test_cost_of_usage() -> None:
    assert DEFAULT_TABLE.cost(Usage(2_000_000, 500_000), "gpt-4o", JUNE_2025) == pytest.approx(2 * 2.50 + 0.5 * 10.00)
    assert DEFAULT_TABLE.cost(Usage(2_000_000, 500_000), "my-finetune") is None
    assert DEFAULT_TABLE.cost(Usage(), "gpt-4o") == 0.0


def test_cached_tokens_cost_the_cached_rate_and_reasoning_tokens_the_output_rate() -> None:
    usage = Usage(2_000_000, 500_000, cached_tokens=1_500_000, reasoning_tokens=400_000)
    assert DEFAULT_TABLE.cost(usage, "gpt-4o", JUNE_2025) == pytest.approx(0.5 * 2.50 + 1.5 * 1.25 + 0.5 * 10.00)
    override = price_table({"house": {"input": 1.0, "output": 2.0, "cached_input": 0.1}, "flat": [1.0, 2.0]})
    assert override.cost(usage, "house") == pytest.approx(0.5 + 0.15 + 1.0)
    assert override.cost(usage, "flat") == pytest.approx(2.0 + 1.0)  # no cached rate: the input price


def test_the_price_in_force_at_the_time_of_the_call() -> None:
    """DeepSeek charged half price off-peak (16:30–00:30 UTC): each call is priced at its own time."""
    table = DEFAULT_TABLE.for_endpoint("https://api.deepseek.com")
    evening = datetime(2025, 6, 2, 20, tzinfo=UTC).timestamp()
    assert table.lookup("deepseek-chat", JUNE_2025) == Price(0.27, 1.10, 0.07)
    assert table.lookup("deepseek-chat", evening) == Price(0.135, 0.55, 0.035)
    assert table.cost(Usage(1_000_000, 0), "deepseek-chat", evening) == pytest.approx(0.135)


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
    assert DEFAULT_TABLE.lookup("gpt-4o-mini") == Price(0.15, 0.60, 0.075)  # the catalogue is untouched
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
        ('{"m": {"input": 1}}', "price of 'm': expected keys 'input' and 'output' (and 'cached_input'), got ['input']"),
        ('{"m": {"input": 1, "output": 2, "cached": 0.5}}', "price of 'm': expected keys 'input' and 'output'"),
        ('{"m": {"input": 1, "output": 2, "cached_input": -1}}', "cached_input price must be a finite number ≥ 0"),
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
