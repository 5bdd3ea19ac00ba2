"""Scoring a run: what a scorer gets (the item, the run's facts read off its events, the judge to ask) and gives back
(a ``Score`` with a one-sentence reason); the built-in checks (exact, contains, regex, number, JSON field, tool
expectations, step, format, cost and latency budgets); custom ``@scorer`` functions; and the LLM judge.
``score_check(check, ctx)`` gives one Score and never raises: a check, a judge or a scorer that fails is a clear
error on that item, never a crashed experiment. A custom scorer is registered like a plugin tool (a module or file
named in ``SPARROW_SCORERS`` that does ``from agent_core.experiments import scorer`` and decorates
``def polite(ctx): return "please" in ctx.answer.lower(), "looked for 'please'"``); it takes a ``ScoringContext``
and returns a bool, a number in 0..1 (a pass at 0.5 or more), a ``(bool or number, reason)`` pair or a ``Score``,
and a dataset names it with ``{"scorer": "polite"}``. The judge model reads the question, the answer (and the
expected one) and a rubric, and says PASS or FAIL and why; its call is an ordinary recorded run in the item's own
session (after the item's run), inspectable like any step, and its verdict is the first word of its answer.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from pydantic import BaseModel, ConfigDict, Field

from agent_core.engine.agent import Agent
from agent_core.env_settings import env_settings
from agent_core.events import Event, ModelFinished, RunFinished, ToolFinished, ToolStarted
from agent_core.experiments.datasets import Check, DatasetItem
from agent_core.models.chat import ChatModel
from agent_core.runtime.session_runs import run_in_session
from agent_core.store import SessionStore
from agent_core.tools.plugins import import_module as load_plugin_module

MAX_REASON_CHARS = 300


class Score(BaseModel):
    """One check's verdict: pass/fail and a value in 0..1, with a one-sentence reason."""

    model_config = ConfigDict(frozen=True)

    name: str
    """The check's kind (``contains``...) or the custom scorer's name."""
    passed: bool
    value: float = Field(ge=0, le=1)
    """1.0 for a pass, 0.0 for a fail, or a partial score a custom scorer or judge gave."""
    reason: str = Field(max_length=MAX_REASON_CHARS)
    error: bool = False
    """True when the scorer itself failed (it raised, or the judge could not be asked): not the answer's fault."""
    judge_run: str | None = None
    """The judge's run, recorded in the item's session (``SESSION:RUN`` opens it)."""

    @classmethod
    def of(cls, name: str, passed: bool, reason: str, *, value: float | None = None) -> Score:
        """A score, its value 1/0 unless given, its reason cut to one short sentence."""
        text = " ".join(reason.split())
        if len(text) > MAX_REASON_CHARS:
            text = text[: MAX_REASON_CHARS - 1] + "…"
        return cls(name=name, passed=passed, value=float(passed) if value is None else value, reason=text)


@dataclass(frozen=True)
class RunFacts:
    """What the checks read of one run: its answer, tool calls, steps, format retries, cost and time."""

    answer: str
    status: str
    steps: int
    tools_called: tuple[str, ...]
    format_retries: int
    repeated_actions: int
    tool_errors: int
    latency_ms: float
    cost: float | None
    error: str | None = None

    @classmethod
    def of(cls, events: Sequence[Event], cost: float | None) -> RunFacts:
        """The facts of a run's events (the last ``run_finished`` gives answer, status, steps and time)."""
        finished = next((e for e in reversed(events) if isinstance(e, RunFinished)), None)
        started = [e for e in events if isinstance(e, ToolStarted)]
        calls = Counter((e.tool, json.dumps(e.arguments, sort_keys=True, default=str)) for e in started)
        return cls(
            answer=(finished.final_answer if finished else None) or "",
            status=finished.status if finished else "error",
            steps=finished.steps if finished else 0,
            tools_called=tuple(e.tool for e in started),
            format_retries=sum(1 for e in events if isinstance(e, ModelFinished) and e.format_error),
            repeated_actions=sum(n - 1 for n in calls.values()),
            tool_errors=sum(1 for e in events if isinstance(e, ToolFinished) and e.error),
            latency_ms=finished.duration_ms if finished else 0.0,
            cost=cost,
            error=finished.error if finished else "the run ended without a run_finished event",
        )


Judge = Callable[[str, DatasetItem, RunFacts], Score]
"""Asks a judge model about an answer with a rubric (see ``recorded_judge``)."""


@dataclass(frozen=True)
class ScoringContext:
    """Everything a scorer may read: the item, the run's facts and events, and the judge to ask."""

    item: DatasetItem
    facts: RunFacts
    events: Sequence[Event] = ()
    judge: Judge | None = None
    config: dict[str, object] = field(default_factory=dict)

    @property
    def answer(self) -> str:
        """The run's final answer ("" when it gave none)."""
        return self.facts.answer


def failure_of(facts: RunFacts, passed: bool) -> str | None:
    """Why a run failed, from its step states first, else ``wrong_answer``; None when it passed."""
    if passed:
        return None
    if facts.status != "completed":
        return {"max_steps": "max_steps", "timeout": "timeout", "format_error": "format_retries"}.get(
            facts.status, facts.status
        )
    for name, count in (
        ("format_retries", facts.format_retries),
        ("repeated_actions", facts.repeated_actions),
        ("tool_errors", facts.tool_errors),
    ):
        if count:
            return name
    return "wrong_answer"


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


SCORERS_ENV = "SPARROW_SCORERS"
ScorerFn = Callable[[ScoringContext], Any]
_REGISTRY: dict[str, ScorerFn] = {}


@overload
def scorer(fn: ScorerFn, /) -> ScorerFn: ...
@overload
def scorer(*, name: str | None = None) -> Callable[[ScorerFn], ScorerFn]: ...


def scorer(fn: ScorerFn | None = None, /, *, name: str | None = None) -> Any:
    """Register ``fn`` as the custom scorer ``name`` (default: the function's name)."""

    def register(f: ScorerFn) -> ScorerFn:
        _REGISTRY[name or f.__name__] = f
        return f

    return register(fn) if fn is not None else register


def registered() -> dict[str, ScorerFn]:
    """The custom scorers known now, by name."""
    return dict(_REGISTRY)


def load_scorers(specs: str | None = None) -> list[str]:
    """Import the scorer modules in ``specs`` (default ``$SPARROW_SCORERS``, comma-separated); their problems."""
    problems = []
    listed = env_settings().sparrow_scorers if specs is None else [s.strip() for s in specs.split(",") if s.strip()]
    for spec in listed:
        try:
            load_plugin_module(spec)
        except Exception as exc:  # a broken module is reported, the others still load
            problems.append(f"scorers: {exc}")
    return problems


def custom_score(name: str, ctx: ScoringContext) -> Score:
    """Run the custom scorer ``name``; a missing one, or one that raises or returns nonsense, is an error Score."""
    fn = _REGISTRY.get(name)
    if fn is None:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        return _error(name, f"no custom scorer named {name!r} is registered (known: {known}; see {SCORERS_ENV})")
    try:
        return as_score(name, fn(ctx))
    except Exception as exc:  # one scorer's bug is an error on this item, never a crashed experiment
        return _error(name, f"the scorer {name} raised {type(exc).__name__}: {exc}")


def as_score(name: str, value: Any) -> Score:
    """A scorer's return value as a Score (TypeError for anything else)."""
    reason = f"{name} said so"
    if isinstance(value, Score):
        return value
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], str):
        value, reason = value
    if isinstance(value, bool):
        return Score.of(name, value, reason)
    if isinstance(value, int | float) and 0 <= value <= 1:
        return Score.of(name, value >= 0.5, reason, value=float(value))
    raise TypeError(f"a scorer returns a bool, a number in 0..1, (value, reason) or a Score, not {value!r}")


def _error(name: str, reason: str) -> Score:
    return Score.of(name, False, reason).model_copy(update={"error": True})


INSTRUCTIONS = (
    "You are a strict grader. You are given a question, an assistant's answer, possibly the expected answer, "
    "and a rubric. Decide whether the answer satisfies the rubric. Give your final answer as one line: "
    "PASS or FAIL, a colon, then one sentence saying why. You may add a score from 0 to 1 in brackets, e.g. "
    "'PASS [0.9]: the date and weekday are both right.'"
)
_VERDICT = re.compile(r"^\W*(PASS|FAIL)\b\s*(?:\[\s*([01](?:\.\d+)?)\s*\])?\s*[:：\-–—]?\s*(.*)$", re.I | re.S)


def judge_question(rubric: str, item: DatasetItem, answer: str) -> str:
    """What the judge is asked."""
    parts = [f"Question:\n{item.question}", f"Answer:\n{answer or '(no answer)'}"]
    if item.answer:
        parts.append(f"Expected answer:\n{item.answer}")
    parts.append(f"Rubric:\n{rubric}")
    return "\n\n".join(parts)


def parse_verdict(text: str) -> tuple[bool, float, str] | None:
    """(passed, value, reason) from a reply such as ``PASS [0.8]: because...``; None if it gives no verdict."""
    found = _VERDICT.match(text.strip())
    if not found:
        return None
    passed = found.group(1).upper() == "PASS"
    value = float(found.group(2)) if found.group(2) else float(passed)
    return passed, min(max(value, 0.0), 1.0), found.group(3).strip() or "the judge gave no reason"


def recorded_judge(store: SessionStore, session_id: str, model: ChatModel) -> Judge:
    """A judge whose runs are recorded in ``session_id`` (after the item's own run)."""

    def judge(rubric: str, item: DatasetItem, facts: RunFacts) -> Score:
        agent = Agent(model, [], instructions=INSTRUCTIONS, max_steps=2, temperature=0.0)
        events = list(run_in_session(store, session_id, agent, judge_question(rubric, item, facts.answer)))
        finished = next(e for e in reversed(events) if isinstance(e, RunFinished))
        where = f"{session_id}:{finished.run_id}"
        verdict = parse_verdict(finished.final_answer or "")
        if verdict is None:
            reason = f"the judge gave no PASS/FAIL verdict ({finished.error or finished.final_answer or 'no answer'})"
            return Score.of("judge", False, reason).model_copy(update={"error": True, "judge_run": where})
        passed, value, reason = verdict
        return Score.of("judge", passed, reason, value=value).model_copy(update={"judge_run": where})

    return judge
