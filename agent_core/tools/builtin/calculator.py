"""A safe calculator: the expression is parsed with ``ast`` and walked over an allow-list, never ``eval``."""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

from agent_core.tools.builtin.arith_bounds import MAX_DIGITS, check_power, check_product, check_result, check_round
from agent_core.tools.tool import ToolError, tool

MAX_LENGTH = 500
__all__ = ["MAX_DIGITS", "MAX_LENGTH", "calculator", "evaluate", "format_number", "split_claim"]

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
