"""Cost bounds for the calculator, checked before an operation runs so no call can hold the GIL for long.

Big-integer arithmetic runs in C without releasing the GIL: one ``round(7, -10**8)`` or ``9**9**9`` stalls
every thread of the process (the app's other users included). Every operation whose cost grows with its
operands is priced here first, and refused with a one-sentence reason when its result would be too big.
"""

from __future__ import annotations

import math
from typing import Any

from agent_core.tools.tool import ToolError

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
