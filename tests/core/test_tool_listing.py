"""Compact tool listings for prompted protocols, and the prompt economy they buy against the seed agent."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from agent_core.tools import calculator, date_calculator
from agent_core.tools.tool import Tool, signature, type_of

BENCH = Path(__file__).resolve().parents[2] / "bench" / "prompt_economy.py"


def nested(items: list[dict], mode: str = "fast", limit: int | None = None) -> str:
    """Take nested things.

    Args:
        items: The things.
        mode: How.
        limit: At most this many.
    """
    return mode


def test_a_signature_names_types_optional_parameters_and_defaults() -> None:
    assert signature(calculator).splitlines()[0].startswith("- calculator(expression: string): Evaluate arithmetic")
    assert (
        signature(date_calculator)
        .splitlines()[0]
        .startswith(
            '- date_calculator(operation: "add"|"subtract"|"difference"|"weekday", date: string, days?: integer|null,'
        )
    )
    lines = signature(Tool(nested)).splitlines()
    assert lines[0] == '- nested(items: {"items":{"additionalProperties":true,"type":"object"},"type":"array"}, ' + (
        'mode?: string = "fast", limit?: integer|null): Take nested things.'
    )
    assert lines[1:] == ["  items: The things.", "  mode: How.", "  limit: At most this many."]


def test_types() -> None:
    assert type_of({"type": "array", "items": {"type": "integer"}}) == "integer[]"
    assert type_of({"enum": [1, "a"]}) == '1|"a"'
    assert type_of({"type": "object", "properties": {"a": {"type": "string"}}}) == (
        '{"type":"object","properties":{"a":{"type":"string"}}}'
    )


def test_the_prompt_costs_at_most_half_the_seeds_uncached_tokens_and_keeps_every_answer() -> None:
    spec = importlib.util.spec_from_file_location("prompt_economy", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules["prompt_economy"] = bench  # its dataclass looks its module up while being defined
    spec.loader.exec_module(bench)
    result = bench.measure()
    assert result["answers_kept"] is True
    assert result["ratio_uncached"] <= 0.5 and result["ratio_total"] <= 1.5, result
