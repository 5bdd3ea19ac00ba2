"""The built-in checks: exact, contains, regex, number, JSON field, tool expectations, cost and latency budgets.

``score_check(check, ctx)`` gives one Score; a judge or a custom scorer is asked through the context and the
registry (a scorer that raises is a clear error on that item, never a crashed experiment).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable
from typing import Any

from agent_core.experiments.items import Check
from agent_core.experiments.scorer_registry import custom_score
from agent_core.experiments.scores import Score, ScoringContext

_NUMBER = re.compile(r"(?<![\w.])[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")
"""A number as people write it: ``1,048,576``, ``4.44``, ``-3``, ``1e6`` (``2024-05-20`` gives 2024, 05, 20)."""


ANSWER_KINDS = frozenset({"exact", "contains", "regex", "number", "json_field"})
"""Checks that read the answer: a run that gave none fails them with its own reason (step limit, timeout...)."""


def normalise(text: str, *, case_sensitive: bool = False) -> str:
    """NFKC, spaces collapsed, surrounding quotes and trailing punctuation dropped, case folded unless asked not to."""
    text = " ".join(unicodedata.normalize("NFKC", text).split()).strip().strip("\"'`“”‘’").rstrip(".。!！ ")
    return text if case_sensitive else text.casefold()


def numbers_in(text: str) -> list[float]:
    """Every number written in ``text``, in order (thousands separators read, full-width digits too)."""
    plain = unicodedata.normalize("NFKC", text)
    return [float(m.group(0).replace(",", "").replace("−", "-")) for m in _NUMBER.finditer(plain)]


def score_check(check: Check, ctx: ScoringContext) -> Score:
    """The Score of one check on one run; never raises."""
    kind = check.kind
    facts = ctx.facts
    if kind in ANSWER_KINDS and not facts.answer and facts.status != "completed":
        return Score.of(kind, False, f"the run ended without an answer ({facts.status}: {facts.error or 'no answer'})")
    try:
        return _CHECKS[kind](check, ctx)
    except Exception as exc:  # a check must not crash the experiment
        return Score.of(kind, False, f"the {kind} check failed: {type(exc).__name__}: {exc}").model_copy(
            update={"error": True}
        )


def _exact(check: Check, ctx: ScoringContext) -> Score:
    want, got = (normalise(x, case_sensitive=check.case_sensitive) for x in (str(check.exact), ctx.answer))
    if want == got:
        return Score.of("exact", True, f"the answer is {_quote(check.exact)}")
    return Score.of("exact", False, f"expected {_quote(check.exact)}, got {_quote(ctx.answer)}")


def _contains(check: Check, ctx: ScoringContext) -> Score:
    want, got = (normalise(x, case_sensitive=check.case_sensitive) for x in (str(check.contains), ctx.answer))
    if want in got:
        return Score.of("contains", True, f"the answer contains {_quote(check.contains)}")
    return Score.of("contains", False, f"the answer does not contain {_quote(check.contains)}: {_quote(ctx.answer)}")


def _regex(check: Check, ctx: ScoringContext) -> Score:
    flags = 0 if check.case_sensitive else re.IGNORECASE
    found = re.search(str(check.regex), ctx.answer, flags)
    if found:
        return Score.of("regex", True, f"the answer matches /{check.regex}/ at {_quote(found.group(0))}")
    return Score.of("regex", False, f"the answer does not match /{check.regex}/: {_quote(ctx.answer)}")


def _number(check: Check, ctx: ScoringContext) -> Score:
    want = float(check.number or 0)
    found = numbers_in(ctx.answer)
    close = [n for n in found if abs(n - want) <= check.tolerance]
    if close:
        return Score.of("number", True, f"the answer gives {close[0]:g} (expected {want:g} ± {check.tolerance:g})")
    shown = ", ".join(f"{n:g}" for n in found[:5]) or "no number"
    return Score.of("number", False, f"expected {want:g} ± {check.tolerance:g}, the answer gives {shown}")


def _json_field(check: Check, ctx: ScoringContext) -> Score:
    path = str(check.json_field)
    try:
        value: Any = json.loads(_strip_fence(ctx.answer))
    except json.JSONDecodeError as exc:
        return Score.of("json_field", False, f"the answer is not JSON ({exc.msg})")
    for part in path.split("."):
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return Score.of("json_field", False, f"the answer's JSON has no field {path}")
    if value == check.equals:
        return Score.of("json_field", True, f"{path} is {json.dumps(value, ensure_ascii=False)}")
    want, got = (json.dumps(v, ensure_ascii=False) for v in (check.equals, value))
    return Score.of("json_field", False, f"{path} is {got}, expected {want}")


def _tool_called(check: Check, ctx: ScoringContext) -> Score:
    tool = str(check.tool_called)
    count = ctx.facts.tools_called.count(tool)
    if count:
        return Score.of("tool_called", True, f"{tool} was called {count} time(s)")
    return Score.of("tool_called", False, f"{tool} was never called (called: {_tools(ctx)})")


def _tool_not_called(check: Check, ctx: ScoringContext) -> Score:
    tool = str(check.tool_not_called)
    count = ctx.facts.tools_called.count(tool)
    if count:
        return Score.of("tool_not_called", False, f"{tool} was called {count} time(s), and must not be")
    return Score.of("tool_not_called", True, f"{tool} was not called")


def _max_steps(check: Check, ctx: ScoringContext) -> Score:
    steps, limit = ctx.facts.steps, int(check.max_steps or 0)
    return Score.of("max_steps", steps <= limit, f"{steps} step(s), at most {limit} allowed")


def _no_format_retries(check: Check, ctx: ScoringContext) -> Score:
    retries = ctx.facts.format_retries
    if retries == 0:
        return Score.of("no_format_retries", True, "every model reply was in the protocol's format")
    return Score.of("no_format_retries", False, f"{retries} model reply(ies) broke the format and were retried")


def _max_cost(check: Check, ctx: ScoringContext) -> Score:
    limit = float(check.max_cost or 0)
    if ctx.facts.cost is None:
        return Score.of("max_cost", False, "the model has no price, so the cost budget cannot be checked")
    return Score.of("max_cost", ctx.facts.cost <= limit, f"cost ${ctx.facts.cost:.6f}, budget ${limit:.6f}")


def _max_latency(check: Check, ctx: ScoringContext) -> Score:
    limit, took = float(check.max_latency_ms or 0), ctx.facts.latency_ms
    return Score.of("max_latency_ms", took <= limit, f"the run took {took:.0f} ms, budget {limit:.0f} ms")


def _judge(check: Check, ctx: ScoringContext) -> Score:
    if ctx.judge is None:
        score = Score.of("judge", False, "no judge model is configured for this experiment (--judge-model)")
        return score.model_copy(update={"error": True})
    return ctx.judge(str(check.judge), ctx.item, ctx.facts)


def _custom(check: Check, ctx: ScoringContext) -> Score:
    return custom_score(str(check.scorer), ctx)


def _strip_fence(text: str) -> str:
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    return fenced.group(1) if fenced else text


def _quote(text: str | None, limit: int = 80) -> str:
    text = " ".join((text or "").split())
    return f"“{text if len(text) <= limit else text[: limit - 1] + '…'}”"


def _tools(ctx: ScoringContext) -> str:
    return ", ".join(sorted(set(ctx.facts.tools_called))) or "none"


_CHECKS: dict[str, Callable[[Check, ScoringContext], Score]] = {
    "exact": _exact,
    "contains": _contains,
    "regex": _regex,
    "number": _number,
    "json_field": _json_field,
    "tool_called": _tool_called,
    "tool_not_called": _tool_not_called,
    "max_steps": _max_steps,
    "no_format_retries": _no_format_retries,
    "max_cost": _max_cost,
    "max_latency_ms": _max_latency,
    "judge": _judge,
    "scorer": _custom,
}
