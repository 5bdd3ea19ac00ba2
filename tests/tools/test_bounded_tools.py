"""A tool never freezes the process: the calculator prices every operation first, and inline is structural."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core import Agent
from agent_core.guards.limits import Deadline
from agent_core.testing import ScriptedModel
from agent_core.tools import Tool, calculator, tool
from agent_core.tools.builtin import MAX_DIGITS, evaluate, resolve_zone
from agent_core.tools.runner import CallRequest, ToolRunner
from agent_core.tools.tool import ToolDefinitionError, ToolError, ToolSet

WORST: dict[str, float] = {"seconds": 0.0}
"""Slowest hostile evaluation seen in this module (printed at the end, for the report)."""

HOSTILE = [
    "round(7, -10**8)",
    "round(7, -10**1000)",
    "round(1.5, 10**9)",
    "round(10**999, -999)",
    "round(2, 1.5)",
    "9**9**9",
    "2**2**2**2**2",
    "10**10**10",
    "(-10)**10**7",
    "1.0000001**10**18",
    "2**-(10**999)",
    "(10**999)**(10**999)",
    "10**999*10**999*10**999",
    "(10**500)*(10**500)*(10**500)",
    "max(10**999, 1)**2",
    "1 << 10**9",
    "1 >> 10**9",
    "factorial(10**6)",
    "math.factorial(99999)",
    "__import__('os')",
    "(lambda: 1)()",
    "[1]*10**9",
    "'a'*10**9",
    "1e308*10",
    "1e999",
    "-1e999",
    "exp(10**999)",
    "exp(1000)",
    "hypot(1e308, 1e308)*1e308",
    "sqrt(10**999)",
    "log(0)",
    "(10**999)//(1/10**999)",
    "floor(1e308)**3",
    "(" * 200 + "1" + ")" * 200,
    "-" * 400 + "1",
    "1" + "**1" * 160,
    "9" * 499,
    "min(" + ",".join(["9**999"] * 40) + ")",
]


def timed(expression: str) -> str:
    """Evaluate, returning the result or the refusal; records the worst time."""
    begin = time.perf_counter()
    try:
        outcome = str(evaluate(expression))
    except ToolError as exc:
        outcome = f"refused: {exc}"
    WORST["seconds"] = max(WORST["seconds"], time.perf_counter() - begin)
    return outcome


@pytest.mark.parametrize("expression", HOSTILE)
def test_hostile_expressions_end_fast_with_a_sentence(expression: str) -> None:
    begin = time.perf_counter()
    outcome = timed(expression)
    # generous bound (the machine is shared); the real numbers are ~0.1 ms, see test_report_worst_time
    assert time.perf_counter() - begin < 1.0
    if outcome.startswith("refused: "):
        assert outcome.startswith("refused: calculator: ") and "\n" not in outcome
    else:
        assert len(outcome.lstrip("-")) <= MAX_DIGITS + 1


def test_round_with_huge_ndigits_is_refused_before_computing() -> None:
    with pytest.raises(ToolError, match="ndigits must be within"):
        evaluate("round(7, -10**8)")
    assert evaluate("round(1234, -2)") == 1200
    assert evaluate("round(2.675, 2)") == 2.67


def test_results_at_the_limit_still_work() -> None:
    assert len(str(evaluate("10**999"))) == 1000
    assert evaluate("2**10") == 1024
    assert evaluate("(-2)**3") == -8
    assert evaluate("0.5**10**9") == 0.0
    with pytest.raises(ToolError, match="digits"):
        evaluate("10**1001")


_atoms = st.sampled_from(
    ["7", "9", "10", "-10", "2", "0", "1", "-1", "0.5", "1e308", "1e-308", "10**999", "9**999", "pi", "1.0000001"]
)
_big = st.sampled_from(["10**8", "-10**8", "10**999", "-(10**999)", "2**64", "1e308", "99999", "0.5", "-3"])


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/", "//", "%", "**", "^"]), children | _big)
    calls = st.tuples(
        st.sampled_from(["round", "sqrt", "exp", "log", "floor", "ceil", "abs", "min", "max", "hypot", "sin"]),
        st.lists(children | _big, min_size=1, max_size=3),
    )
    return binary.map(lambda t: f"({t[0]}){t[1]}({t[2]})") | calls.map(lambda t: f"{t[0]}({', '.join(t[1])})")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.recursive(_atoms | _big, _combine, max_leaves=12))
def test_any_expression_tree_is_bounded(expression: str) -> None:
    begin = time.perf_counter()
    outcome = timed(expression)
    assert time.perf_counter() - begin < 1.0, expression
    if not outcome.startswith("refused: "):
        assert len(outcome.lstrip("-").split(".")[0]) <= MAX_DIGITS + 1


def test_long_time_zone_names_do_not_run_the_fuzzy_match() -> None:
    begin = time.perf_counter()
    with pytest.raises(ToolError, match="characters"):
        resolve_zone("Europe/" + "x" * 1_000_000)
    assert time.perf_counter() - begin < 1.0


def test_inline_is_reserved_for_bounded_builtins() -> None:
    def spin(n: int) -> str:
        """Loop.

        Args:
            n: How long.
        """
        return str(sum(range(n)))

    with pytest.raises(ToolDefinitionError, match="inline=True is reserved"):
        Tool(spin, inline=True)
    assert Tool(spin).inline is False
    assert calculator.inline and Tool(calculator.fn, inline=True).inline


def _builtin_sleeper(seconds: float) -> str:
    """Sleep (stands in for a built-in tool that ran longer than its budget).

    Args:
        seconds: How long.
    """
    time.sleep(seconds)
    return "slept"


_builtin_sleeper.__module__ = "agent_core.tools.fake_slow"
SLEEPER = tool(_builtin_sleeper, name="sleeper", inline=True, timeout=0.05)


def test_an_inline_tool_past_its_timeout_ends_as_timed_out() -> None:
    runner = ToolRunner(ToolSet([SLEEPER]))
    [result] = runner.run([CallRequest("c1", "sleeper", {"seconds": 0.2})])
    assert result.error == "sleeper timed out after 0.05 s"
    [quick] = runner.run([CallRequest("c2", "sleeper", {"seconds": 0.0})])
    assert quick.output == "slept" and quick.error is None


def test_an_inline_tool_does_not_start_after_the_run_deadline() -> None:
    deadline = Deadline(0.0)
    runner = ToolRunner(ToolSet([calculator]))
    [result] = runner.run([CallRequest("c1", "calculator", {"expression": "1+1"})], deadline=deadline)
    assert result.error is not None and "timed out" in result.error


def test_a_hostile_calculator_call_inside_a_run_ends_quickly() -> None:
    model = ScriptedModel(
        [
            'Thought: x\nAction: calculator\nAction Input: {"expression": "round(7, -10**8)"}',
            "Thought: done\nFinal Answer: refused",
        ]
    )
    begin = time.perf_counter()
    events = list(Agent(model, [calculator], time_limit=5).run("hostile"))
    assert time.perf_counter() - begin < 5
    finished = [e for e in events if e.type == "tool_finished"]
    assert finished[0].error == "calculator: round's ndigits must be within ±1000"
    assert events[-1].status == "completed"


def test_report_worst_time() -> None:
    for expression in HOSTILE:
        timed(expression)
    print(f"\nworst hostile calculator evaluation: {WORST['seconds'] * 1000:.2f} ms")
    assert WORST["seconds"] < 1.0
