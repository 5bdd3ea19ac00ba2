"""Numbers for people: durations, token counts, costs and percentages, each as a short string.

Every function accepts ``None`` for "unknown" and renders it as an em dash, so a missing figure is
shown as missing and never as zero.
"""

from __future__ import annotations

import math
from datetime import datetime

from agent_core.events import Usage

UNKNOWN = "—"
"""What an unknown figure looks like."""
ESTIMATED = "~"
"""Prefix of a figure that is Sparrow's estimate rather than the provider's count."""


def format_duration(ms: float | None) -> str:
    """``0.4 ms`` → ``<1 ms``, ``850 ms``, ``1.2 s``, ``2 min 3 s``, ``1 h 5 min``."""
    if ms is None or not math.isfinite(ms):
        return UNKNOWN
    if ms <= 0:
        return "0 ms"
    if ms < 1:
        return "<1 ms"
    if round(ms) < 1000:
        return f"{round(ms)} ms"
    if round(ms / 1000, 1) < 60:
        return f"{ms / 1000:.1f} s"
    seconds = round(ms / 1000)
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60} min"


def format_tokens(count: int | None, *, estimated: bool = False) -> str:
    """``950``, ``3.4k``, ``12k``, ``1.2M``; ``~`` in front when the count is an estimate."""
    if count is None:
        return UNKNOWN
    prefix = ESTIMATED if estimated else ""
    return prefix + _compact(count)


def format_token_flow(
    prompt: int | None, completion: int | None, *, estimated: bool = False, unit: str = "tokens"
) -> str:
    """Tokens in and out of a model call or a run, the one way every view says it: ``729 → 23 tokens``."""
    sent = format_tokens(prompt, estimated=estimated)
    return f"{sent} → {format_tokens(completion, estimated=estimated)} {unit}"


def format_usage(usage: Usage, *, unit: str = "tokens", cached: str = "cached", reasoning: str = "reasoning") -> str:
    """``729 → 23 tokens``, with what the provider said of them: ``729 (512 cached) → 23 (12 reasoning) tokens``."""
    sent = format_tokens(usage.prompt_tokens, estimated=usage.estimated)
    if usage.cached_tokens:
        sent += f" ({format_tokens(usage.cached_tokens)} {cached})"
    written = format_tokens(usage.completion_tokens, estimated=usage.estimated)
    if usage.reasoning_tokens:
        written += f" ({format_tokens(usage.reasoning_tokens)} {reasoning})"
    return f"{sent} → {written} {unit}"


def _compact(count: int) -> str:
    if abs(count) < 1000:
        return str(count)
    for size, suffix in ((1_000, "k"), (1_000_000, "M"), (1_000_000_000, "B")):
        value = count / size
        text = f"{value:.1f}" if abs(value) < 9.95 else f"{value:.0f}"
        if abs(float(text)) < 1000:  # 999.6k shows as 1.0M, not 1000k
            return text + suffix
    return f"{count / 1_000_000_000_000:.1f}T"


def format_cost(usd: float | None, *, estimated: bool = False) -> str:
    """``$0.0021``, ``$0.42``, ``$12.35``; ``—`` when the price is unknown, ``~`` when tokens were estimated."""
    if usd is None or not math.isfinite(usd):
        return UNKNOWN
    prefix = ESTIMATED if estimated else ""
    if usd == 0:
        return f"{prefix}$0"
    if usd < 0.000001:
        return f"{prefix}<$0.000001"
    if usd >= 1:
        return f"{prefix}${usd:,.2f}"
    # Two significant digits for small amounts: $0.0021, $0.035, $0.42.
    decimals = min(6, max(2, 1 - math.floor(math.log10(usd))))
    text = f"{usd:.{decimals}f}"
    return f"{prefix}${text}" if float(text) < 1 else f"{prefix}$1.00"


def format_percent(fraction: float | None, *, digits: int = 0) -> str:
    """``0.123`` → ``12%``; a non-zero share too small to show is ``<1%`` rather than ``0%``."""
    if fraction is None or not math.isfinite(fraction):
        return UNKNOWN
    value = fraction * 100
    smallest = 10.0**-digits
    if 0 < value < smallest:
        return f"<{smallest:.{digits}f}%"
    return f"{value:.{digits}f}%"


def share(part: float | None, whole: float | None) -> float | None:
    """``part / whole``, or None when either is unknown or ``whole`` is zero."""
    if part is None or whole is None or whole == 0:
        return None
    return part / whole


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """``1 error``, ``2 errors``, ``3 tool calls`` (with thousands separators)."""
    word = noun if count == 1 else (plural_form or f"{noun}s")
    return f"{count:,} {word}"


def clip(text: str, limit: int, *, one_line: bool = False) -> str:
    """``text`` cut to at most ``limit`` characters with an ellipsis; ``one_line`` folds white space first."""
    if one_line:
        text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_timestamp(timestamp: float | None, *, with_time: bool = True) -> str:
    """A local date (``2026-12-01``) or date and minute (``2026-12-01 09:30``); an em dash when unknown."""
    if timestamp is None or not math.isfinite(timestamp):
        return UNKNOWN
    try:
        moment = datetime.fromtimestamp(timestamp)
    except (OverflowError, OSError, ValueError):
        return UNKNOWN
    return moment.strftime("%Y-%m-%d %H:%M" if with_time else "%Y-%m-%d")
