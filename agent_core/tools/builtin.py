"""The built-in tools every agent has: a safe calculator, the clock, and date arithmetic.

The calculator parses an expression with ``ast`` and walks it over an allow-list, never ``eval``. Big-integer
arithmetic runs in C without releasing the GIL (one ``round(7, -10**8)`` or ``9**9**9`` stalls every thread of the
process, the app's other users included), so every operation whose cost grows with its operands is priced first
and refused with a one-sentence reason when its result would be too big. ``get_current_time`` gives the date, time
and weekday in any IANA time zone; ``date_calculator`` does the date arithmetic a model should never do in its
head (offsets, differences, weekdays). All three run inline on the loop's thread: their work is bounded.
"""

from __future__ import annotations

import ast
import difflib
import math
import operator
from collections.abc import Callable
from datetime import date, datetime, timedelta
from functools import cache
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from agent_core.tools.tool import Tool, ToolError, ToolOutput, tool

MAX_LENGTH = 500


_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "sqrt": math.sqrt,
    "log": math.log,
    "ln": math.log,
    "log10": math.log10,
    "log2": math.log2,
    "exp": math.exp,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "atan2": math.atan2,
    "sinh": math.sinh,
    "cosh": math.cosh,
    "tanh": math.tanh,
    "degrees": math.degrees,
    "radians": math.radians,
    "abs": abs,
    "round": round,
    "floor": math.floor,
    "ceil": math.ceil,
    "min": min,
    "max": max,
    "hypot": math.hypot,
}
_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau}
_SYMBOLS = str.maketrans({"×": "*", "÷": "/", "−": "-", "^": "**", "（": "(", "）": ")", "，": ","})


@tool(inline=True)  # bounded, pure work: no worker thread needed
def calculator(expression: str) -> str:
    """Evaluate arithmetic exactly: + - * / // % ** (or ^), parentheses, pi, e, tau, sqrt, log (natural, or
    log(x, base)), log10, log2, exp, sin, cos, tan, asin, acos, atan (radians), abs, round, floor, ceil, min,
    max, hypot.

    Args:
        expression: e.g. "(2 + 3) * 4" or "sqrt(2) * pi".
    """
    left, claim = split_claim(expression)
    value = format_number(evaluate(left))
    return value if claim is None else f"{value} (evaluated {left.strip()}; the '= {claim}' after it was not used)"


def split_claim(expression: str) -> tuple[str, str | None]:
    """``"144 / 12 = 12.5"`` → ``("144 / 12 ", "12.5")``: small models write the result they expect after the sum.

    The left side is evaluated and the claim named as unused, so a wrong guess is corrected rather than refused
    (measured with SmolLM2-135M: refused as invalid syntax, it sent the same call again until the run ended).
    Only a lone ``=`` outside parentheses counts (``sqrt(x=4)`` and ``2 == 2`` are refused as before).
    """
    depth = 0
    for index, char in enumerate(expression):
        depth += (char in "([") - (char in ")]")
        lone = char == "=" and expression[index + 1 : index + 2] != "=" and expression[index - 1 : index] not in "=<>!"
        if depth == 0 and lone and expression[:index].strip():
            return expression[:index], expression[index + 1 :].strip()[:40] or None
    return expression, None


def evaluate(expression: str) -> int | float:
    """Evaluate ``expression`` over the allow-list; ToolError with a clear reason otherwise."""
    text = expression.strip().translate(_SYMBOLS)
    if not text:
        raise ToolError("calculator: the expression is empty")
    if len(text) > MAX_LENGTH:
        raise ToolError(f"calculator: the expression is too long ({len(text)} > {MAX_LENGTH} characters)")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ToolError(f"calculator: not a valid expression ({exc.msg})") from None
    except (RecursionError, MemoryError, ValueError):
        raise ToolError("calculator: the expression is nested too deeply") from None
    try:
        return _eval(tree.body)
    except ZeroDivisionError:
        raise ToolError("calculator: division by zero") from None
    except OverflowError:
        raise ToolError("calculator: the result is too large") from None
    except RecursionError:
        raise ToolError("calculator: the expression is nested too deeply") from None
    except (ValueError, TypeError) as exc:
        raise ToolError(f"calculator: {exc}") from None


def _eval(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return check_result(node.value)
    if isinstance(node, ast.Name):
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        raise ToolError(f"calculator: unknown name {node.id!r}; allowed constants: pi, e, tau")
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return check_result(_UNARY[type(node.op)](_eval(node.operand)))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow):
            check_power(left, right)
        elif isinstance(node.op, ast.Mult):
            check_product(left, right)
        return check_result(_BINARY[type(node.op)](left, right))
    if isinstance(node, ast.Call):
        return _call(node)
    raise ToolError(f"calculator: {type(node).__name__} is not allowed; use numbers, operators and functions")


def _call(node: ast.Call) -> Any:
    if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
        name = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
        raise ToolError(f"calculator: function {name!r} is not allowed; allowed: {', '.join(_FUNCTIONS)}")
    if node.keywords:
        raise ToolError("calculator: keyword arguments are not allowed")
    args = [_eval(arg) for arg in node.args]
    if node.func.id == "round":
        check_round(args)
    return check_result(_FUNCTIONS[node.func.id](*args))


def format_number(value: int | float) -> str:
    """Integers exactly; floats with up to 12 significant digits and no trailing noise."""
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ToolError("calculator: the result is not a finite number")
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.12g}"
    return str(value)


# --- the calculator's cost bounds ----------------------------------------------------------------------------------

MAX_DIGITS = 1000
"""Largest integer (in decimal digits) the calculator computes or returns."""
MAX_BITS = int(MAX_DIGITS * math.log2(10)) + 1
"""The same limit in bits (what ``int.bit_length`` reports)."""


def check_power(base: Any, exponent: Any) -> None:
    """Refuse ``base ** exponent`` when the result would exceed the limit."""
    if abs(base) <= 1 or abs(exponent) <= 1 or exponent < 0:
        return  # |result| <= |base|, or a float below one: cheap
    digits = _approximate_digits(base, exponent)
    if digits > MAX_DIGITS:
        _refuse_digits(digits)


def check_product(left: Any, right: Any) -> None:
    """Refuse an integer product whose size would exceed the limit."""
    if isinstance(left, int) and isinstance(right, int) and left.bit_length() + right.bit_length() > MAX_BITS + 1:
        raise ToolError(f"calculator: the result has more than {MAX_DIGITS} digits")


def check_round(args: list[Any]) -> None:
    """``round(x, ndigits)`` computes ``10**abs(ndigits)``: keep ndigits an integer within the limit."""
    if len(args) == 2:
        ndigits = args[1]
        if not isinstance(ndigits, int):
            raise ToolError("calculator: round's second argument (ndigits) must be a whole number")
        if abs(ndigits) > MAX_DIGITS:
            raise ToolError(f"calculator: round's ndigits must be within ±{MAX_DIGITS}")


def check_result(value: Any) -> Any:
    """Refuse results the calculator cannot show: huge integers, complex numbers, overflowed floats."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int) and value.bit_length() > MAX_BITS:
        raise ToolError(f"calculator: the result has more than {MAX_DIGITS} digits")
    if isinstance(value, complex):
        raise ToolError("calculator: the result is a complex number")
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolError("calculator: the result is not a finite number (too large for a float)")
    return value


def _approximate_digits(base: Any, exponent: Any) -> float:
    try:
        return float(exponent) * math.log10(abs(base))
    except OverflowError:
        return math.inf


def _refuse_digits(digits: float) -> None:
    shown = "an astronomical number of" if math.isinf(digits) else f"about {digits:,.0f}"
    raise ToolError(f"calculator: the result would have {shown} digits (limit {MAX_DIGITS})")


_MAX_ZONE_NAME = 64
"""Longer than any IANA zone name ("America/Argentina/ComodRivadavia" is 32)."""


@tool(inline=True, repeatable=True)  # bounded, pure work: no worker thread needed; the time moves on
def get_current_time(timezone: str | None = None) -> ToolOutput:
    """Get the current date, time and weekday, optionally in a given time zone.

    Args:
        timezone: IANA time zone name such as "Asia/Shanghai" or "Europe/Paris"; omit for UTC.
    """
    zone = resolve_zone(timezone or "UTC")
    now = datetime.now(zone)
    text = f"{now:%Y-%m-%d %H:%M:%S} {now:%A} ({zone.key}, UTC{now:%z})"
    return ToolOutput(text, {"iso": now.isoformat(), "timezone": zone.key, "weekday": now.strftime("%A")})


def resolve_zone(name: str) -> ZoneInfo:
    """A ZoneInfo for ``name``; ToolError with close suggestions for an unknown zone."""
    cleaned = name.strip().replace(" ", "_")
    if len(cleaned) > _MAX_ZONE_NAME:  # the fuzzy match below costs length x zones
        raise ToolError(f"unknown time zone (the name is {len(cleaned):,} characters; IANA names are short)")
    if cleaned.upper() in {"UTC", "GMT", "Z"}:
        cleaned = "UTC"
    try:
        return ZoneInfo(cleaned)
    except (ZoneInfoNotFoundError, ValueError, IsADirectoryError):
        pass
    lower = {z.lower(): z for z in _zones()}
    if cleaned.lower() in lower:
        return ZoneInfo(lower[cleaned.lower()])
    close = difflib.get_close_matches(cleaned, _zones(), n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ' Use an IANA name such as "Asia/Shanghai".'
    raise ToolError(f"unknown time zone {name!r}.{hint}")


@cache
def _zones() -> list[str]:
    return sorted(available_timezones())


Operation = Literal["add", "subtract", "difference", "weekday"]


@tool(inline=True)  # bounded, pure work: no worker thread needed
def date_calculator(
    operation: Operation,
    date: str,
    days: int | None = None,
    other_date: str | None = None,
) -> ToolOutput:
    """Calculate with calendar dates: add or subtract days, count days between dates, or find a weekday.

    Args:
        operation: "add" or "subtract" (needs days), "difference" (needs other_date), or "weekday".
        date: The start date in ISO format YYYY-MM-DD, or "today".
        days: Number of days to add or subtract (for add/subtract).
        other_date: The second date YYYY-MM-DD (for difference): result is other_date minus date.
    """
    start = parse_date(date, "date")
    if operation in ("add", "subtract"):
        if days is None:
            raise ToolError(f"date_calculator: operation {operation!r} needs 'days'")
        if abs(days) > 3_650_000:
            raise ToolError("date_calculator: 'days' must be within ±3,650,000")
        try:
            result = start + timedelta(days=days if operation == "add" else -days)
        except OverflowError:
            raise ToolError("date_calculator: the result is outside the years 1-9999") from None
        sign = "+" if operation == "add" else "-"
        text = f"{_show(start)} {sign} {days} days = {_show(result)}"
        return ToolOutput(text, {"result": result.isoformat(), "weekday": result.strftime("%A")})
    if operation == "difference":
        if other_date is None:
            raise ToolError("date_calculator: operation 'difference' needs 'other_date'")
        other = parse_date(other_date, "other_date")
        delta = (other - start).days
        text = f"From {_show(start)} to {_show(other)} is {delta} days"
        return ToolOutput(text, {"days": delta})
    return ToolOutput(_show(start), {"result": start.isoformat(), "weekday": start.strftime("%A")})


def parse_date(value: str, field: str) -> date:
    """Parse YYYY-MM-DD (or "today"), with a clear error naming the field."""
    text = value.strip()
    if text.lower() == "today":
        return date.today()
    try:
        return date.fromisoformat(text.replace("/", "-"))
    except ValueError:
        raise ToolError(f"date_calculator: {field} {value!r} is not a date in YYYY-MM-DD format") from None


def _show(d: date) -> str:
    return f"{d.isoformat()} ({d.strftime('%A')})"


def builtin_tools() -> list[Tool]:
    """The tools every Sparrow agent has unless told otherwise."""
    return [calculator, get_current_time, date_calculator]
