"""The built-in tools: calculator (no eval), current time, date arithmetic."""

from __future__ import annotations

import importlib
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from agent_core.tools import ToolError, calculator, date_calculator, get_current_time


def calc(expression: str) -> str:
    return calculator.invoke({"expression": expression}).content


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("1 + 2 * 3", "7"),
        ("(1 + 2) * 3", "9"),
        ("7 / 2", "3.5"),
        ("7 // 2", "3"),
        ("7 % 3", "1"),
        ("2 ** 10", "1024"),
        ("2 ^ 10", "1024"),
        ("-3 + +5", "2"),
        ("6 × 7", "42"),
        ("84 ÷ 2", "42"),
        ("sqrt(16) + log(e)", "5"),
        ("log(8, 2)", "3"),
        ("round(sin(pi / 2), 6)", "1"),
        ("0.1 + 0.2", "0.3"),
        ("123 * 456", "56088"),
        ("10 ** 20", "100000000000000000000"),
        ("max(3, 9, 4) - min(2, 8)", "7"),
    ],
)
def test_calculator_computes(expression: str, expected: str) -> None:
    assert calc(expression) == expected


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("144 / 12 = 12.5", "12 (evaluated 144 / 12; the '= 12.5' after it was not used)"),
        ("1000 - 387 = 397.8", "613 (evaluated 1000 - 387; the '= 397.8' after it was not used)"),
        ("17 * 23 = 391", "391 (evaluated 17 * 23; the '= 391' after it was not used)"),
        ("1 + 1 =", "2"),
    ],
)
def test_a_claimed_result_after_equals_is_not_used_and_said_so(expression: str, expected: str) -> None:
    assert calc(expression) == expected


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("2 == 2", "calculator: Compare is not allowed"),
        ("3 <= 4", "calculator: Compare is not allowed"),
        ("= 5", "calculator: not a valid expression"),
        ("x = 5", "calculator: unknown name 'x'"),
        ("1 / 0 = 0", "calculator: division by zero"),
        ("__import__('os').system('echo pwned')", "calculator: function \"__import__('os').system\" is not allowed"),
        ("os.system", "calculator: Attribute is not allowed; use numbers, operators and functions"),
        ("x + 1", "calculator: unknown name 'x'; allowed constants: pi, e, tau"),
        ("open('/etc/passwd')", "calculator: function 'open' is not allowed"),
        ("[1, 2]", "calculator: List is not allowed; use numbers, operators and functions"),
        ("'a' * 3", "calculator: Constant is not allowed; use numbers, operators and functions"),
        ("lambda: 1", "calculator: Lambda is not allowed; use numbers, operators and functions"),
        ("1 / 0", "calculator: division by zero"),
        ("5 % 0", "calculator: division by zero"),
        ("sqrt(-1)", "calculator: math domain error"),
        ("", "calculator: the expression is empty"),
        ("1 +", "calculator: not a valid expression"),
        ("9 ** 9 ** 9", "calculator: the result would have about"),
        ("10 ** 5000", "calculator: the result would have about 5,000 digits (limit 1000)"),
        ("1" + "+1" * 300, "calculator: the expression is too long (601 > 500 characters)"),
        ("sqrt(x=4)", "calculator: keyword arguments are not allowed"),
        ("exp(1000)", "calculator: the result is too large"),
    ],
)
def test_calculator_refuses_clearly(expression: str, message: str) -> None:
    with pytest.raises(ToolError) as caught:
        calc(expression)
    assert str(caught.value).startswith(message)


def test_calculator_refuses_huge_work_quickly() -> None:
    started = time.perf_counter()
    for expression in ("9**9**9**9", "(10**999)*(10**999)", "2**(2**64)", "(" * 240 + "1" + ")" * 240):
        with pytest.raises(ToolError):
            calc(expression)
    assert time.perf_counter() - started < 1.0


def test_calculator_never_uses_eval() -> None:
    module = importlib.import_module("agent_core.tools.builtin")
    source = Path(module.__file__).read_text(encoding="utf-8")
    assert "eval(" not in source.replace("_eval(", "").replace("evaluate(", "")


def test_the_seed_question_150_days_after_2024_05_20() -> None:
    output = date_calculator.invoke({"operation": "add", "date": "2024-05-20", "days": 150})
    assert output.content == "2024-05-20 (Monday) + 150 days = 2024-10-17 (Thursday)"
    assert output.details == {"result": "2024-10-17", "weekday": "Thursday"}


def test_date_calculator_operations() -> None:
    assert date_calculator.invoke({"operation": "subtract", "date": "2024-03-01", "days": 1}).details == {
        "result": "2024-02-29",
        "weekday": "Thursday",
    }
    assert date_calculator.invoke(
        {"operation": "difference", "date": "2024-01-01", "other_date": "2024-12-25"}
    ).details == {"days": 359}
    assert date_calculator.invoke({"operation": "weekday", "date": "2000-01-01"}).content == "2000-01-01 (Saturday)"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"operation": "add", "date": "2024-05-20"}, "date_calculator: operation 'add' needs 'days'"),
        ({"operation": "difference", "date": "2024-05-20"}, "date_calculator: operation 'difference' needs"),
        ({"operation": "weekday", "date": "20/05/2024"}, "date_calculator: date '20/05/2024' is not a date"),
        ({"operation": "add", "date": "9999-12-31", "days": 5}, "date_calculator: the result is outside"),
    ],
)
def test_date_calculator_errors(arguments: dict, message: str) -> None:
    with pytest.raises(ToolError) as caught:
        date_calculator.invoke(arguments)
    assert str(caught.value).startswith(message)


def test_date_calculator_validates_operation_before_running() -> None:
    from agent_core.tools import ToolArgumentsError

    with pytest.raises(ToolArgumentsError) as caught:
        date_calculator.invoke({"operation": "multiply", "date": "2024-05-20"})
    assert "operation: Input should be 'add', 'subtract', 'difference' or 'weekday'" in str(caught.value)


def test_current_time_in_a_zone() -> None:
    output = get_current_time.invoke({"timezone": "Asia/Shanghai"})
    now = datetime.fromisoformat(output.details["iso"])
    assert output.details["timezone"] == "Asia/Shanghai"
    assert abs((now - datetime.now(ZoneInfo("UTC"))).total_seconds()) < 5
    assert "(Asia/Shanghai, UTC+0800)" in output.content


def test_current_time_defaults_to_utc_and_forgives_case() -> None:
    assert get_current_time.invoke({}).details["timezone"] == "UTC"
    assert get_current_time.invoke({"timezone": "europe/paris"}).details["timezone"] == "Europe/Paris"


def test_unknown_zone_suggests_close_names() -> None:
    with pytest.raises(ToolError) as caught:
        get_current_time.invoke({"timezone": "Asia/Shangai"})
    assert str(caught.value).startswith("unknown time zone 'Asia/Shangai'. Did you mean Asia/Shanghai")
    with pytest.raises(ToolError, match="unknown time zone 'Mars/Olympus'"):
        get_current_time.invoke({"timezone": "Mars/Olympus"})
