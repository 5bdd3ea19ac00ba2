"""Two turns side by side: their steps aligned, what differs in each step field by field, and their metrics. Steps
are aligned on what they did (the tools they called, or the answer they gave) with ``difflib.SequenceMatcher``, so
an extra step on one side shows as a gap rather than shifting every later pair. Each pair is ``same``, ``changed``,
``added`` or ``removed``, judged on every field as text (thought, action, arguments, observation, answer, error):
``81`` against ``refused`` is a changed answer even though both steps answered, and texts are diffed word by word
so a view can mark what changed. Works on any two folded turns (``TurnView``), from one session or two, live or
imported: a fork against its original, a rerun.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from agent_core.engine.call_index import canonical_arguments
from agent_core.formatting import format_cost, format_duration, format_tokens
from agent_core.models.pricing import DEFAULT_TABLE, PriceTable
from agent_core.views.metrics import RunMetrics
from agent_core.views.turns import ActionView, StepView, TurnView

FIELDS: tuple[str, ...] = ("thought", "action", "arguments", "observation", "answer", "error")
"""The fields of a step compared, in the order they are shown."""

_WORDS = re.compile(r"\S+\s*|\s+")


@dataclass(frozen=True)
class FieldDiff:
    """One field of two aligned steps ("" where a side has nothing)."""

    name: str
    left: str
    right: str

    @property
    def differs(self) -> bool:
        """True when the two texts are not identical."""
        return self.left != self.right

    def pieces(self) -> list[tuple[str, str]]:
        """The texts merged word by word: ``("equal" | "delete" | "insert", text)``, in reading order."""
        a, b = _WORDS.findall(self.left), _WORDS.findall(self.right)
        out: list[tuple[str, str]] = []
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
            if tag == "equal":
                out.append(("equal", "".join(a[i1:i2])))
                continue
            if i2 > i1:
                out.append(("delete", "".join(a[i1:i2])))
            if j2 > j1:
                out.append(("insert", "".join(b[j1:j2])))
        return out


def step_fields(step: StepView | None) -> dict[str, str]:
    """The compared fields of a step as text (all empty for a missing step)."""
    if step is None:
        return dict.fromkeys(FIELDS, "")
    errors = [e for e in (step.model_error, step.format_error) if e]
    errors += [f"{a.tool}: {a.error}" for a in step.actions if a.error]
    return {
        "thought": step.thought.strip(),
        "action": " + ".join(a.tool for a in step.actions),
        "arguments": "\n".join(canonical_arguments(a.arguments) for a in step.actions),
        "observation": "\n".join(a.output or "" for a in step.actions),
        "answer": step.final_answer or "",
        "error": "\n".join(errors),
    }


def field_diffs(left: StepView | None, right: StepView | None) -> tuple[FieldDiff, ...]:
    """Every field of the two steps, side by side."""
    a, b = step_fields(left), step_fields(right)
    return tuple(FieldDiff(name, a[name], b[name]) for name in FIELDS)


@dataclass(frozen=True)
class CallDiff:
    """Two tool calls at the same place in aligned steps (either may be missing)."""

    left: ActionView | None
    right: ActionView | None
    changed_arguments: tuple[str, ...] = ()
    """Argument names whose values differ (present on one side only included)."""

    @property
    def differs(self) -> bool:
        """True when the tool, an argument or the presence of the call differs."""
        if self.left is None or self.right is None:
            return True
        return self.left.tool != self.right.tool or bool(self.changed_arguments)


@dataclass(frozen=True)
class StepPair:
    """A step of each turn aligned together; None on the side that has no such step."""

    left: StepView | None
    right: StepView | None
    calls: tuple[CallDiff, ...] = ()
    fields: tuple[FieldDiff, ...] = ()
    """Thought, action, arguments, observation, answer and error of both sides, as text."""

    @property
    def differs(self) -> bool:
        """True when one side has no step here, or any call or any field (as text) differs."""
        if self.left is None or self.right is None:
            return True
        answered = (self.left.final_answer is None) != (self.right.final_answer is None)
        return answered or any(c.differs for c in self.calls) or any(f.differs for f in self.fields)

    @property
    def status(self) -> str:
        """``same``, ``changed``, ``added`` (only the right has it) or ``removed`` (only the left has it)."""
        if self.left is None:
            return "added"
        if self.right is None:
            return "removed"
        return "changed" if self.differs else "same"

    @property
    def changed_fields(self) -> tuple[str, ...]:
        """The names of the fields that differ."""
        return tuple(f.name for f in self.fields if f.differs)


@dataclass(frozen=True)
class MetricRow:
    """One line of the metrics table: the figure on each side, formatted, and whether they differ."""

    name: str
    left: str
    right: str
    delta: str = ""
    """The right side minus the left (numbers only), e.g. ``+2`` or ``-1.2 s``."""

    @property
    def differs(self) -> bool:
        """True when the two sides show different values (or round to the same text but differ)."""
        return self.left != self.right or bool(self.delta)


@dataclass(frozen=True)
class Comparison:
    """Everything the Compare view shows about two turns."""

    left: TurnView
    right: TurnView
    steps: tuple[StepPair, ...]
    metrics: tuple[MetricRow, ...] = field(default_factory=tuple)
    prices: PriceTable = DEFAULT_TABLE
    """What a step's cost is priced with (``step.cost(prices)``: each step at its own run's endpoint)."""

    @property
    def differing_steps(self) -> int:
        """How many aligned step pairs differ."""
        return sum(1 for pair in self.steps if pair.differs)

    @property
    def first_divergence(self) -> int | None:
        """The index in ``steps`` of the first pair that differs; None when every pair is the same."""
        return next((i for i, pair in enumerate(self.steps) if pair.differs), None)

    def summary(self) -> str:
        """One line: the difference in steps, tokens, cost and time (right minus left), or that there is none."""
        deltas = {r.name: r.delta for r in self.metrics if r.delta}
        names = {"steps": "steps", "tokens": "tokens", "cost": "cost", "duration": "time"}
        parts = [f"{label} {deltas[name]}" for name, label in names.items() if name in deltas]
        return " · ".join(parts) if parts else "same steps, tokens, cost and time"


def step_signature(step: StepView) -> tuple[str, ...]:
    """What a step did, for alignment: the tools it called in order, ``answer``, or ``error``."""
    if step.actions:
        return tuple(a.tool for a in step.actions)
    if step.final_answer is not None:
        return ("answer",)
    return ("error",) if step.has_error else ("nothing",)


def align_steps(left: TurnView, right: TurnView) -> tuple[StepPair, ...]:
    """The steps of both turns in order, paired where they did the same kind of thing."""
    a, b = left.numbered_steps, right.numbered_steps
    fixed = _fixed(left, right, a, b)
    pairs: list[StepPair] = [_pair(a[i], b[i]) for i in range(fixed)]
    a, b = a[fixed:], b[fixed:]
    matcher = difflib.SequenceMatcher(
        a=[step_signature(s) for s in a], b=[step_signature(s) for s in b], autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("equal", "replace"):
            common = min(i2 - i1, j2 - j1)
            pairs += [_pair(a[i1 + k], b[j1 + k]) for k in range(common)]
            pairs += [_alone(s, None) for s in a[i1 + common : i2]]
            pairs += [_alone(None, s) for s in b[j1 + common : j2]]
        else:
            pairs += [_alone(s, None) for s in a[i1:i2]] + [_alone(None, s) for s in b[j1:j2]]
    return tuple(pairs)


def _fixed(left: TurnView, right: TurnView, a: list[StepView], b: list[StepView]) -> int:
    """How many leading steps pair by position: up to a fork's step if one side forks the other, else the same ones."""
    for fork, source in ((right, left), (left, right)):
        if fork.forked is not None and fork.forked.from_run == source.run_id:
            return min(fork.forked.at_step, len(a), len(b))
    same = 0
    while same < min(len(a), len(b)) and step_fields(a[same]) == step_fields(b[same]):
        same += 1
    return same


def _pair(left: StepView, right: StepView) -> StepPair:
    count = max(len(left.actions), len(right.actions))
    calls = tuple(_call_diff(_at(left.actions, i), _at(right.actions, i)) for i in range(count))
    return StepPair(left, right, calls, field_diffs(left, right))


def _alone(left: StepView | None, right: StepView | None) -> StepPair:
    return StepPair(left, right, (), field_diffs(left, right))


def _at(actions: list[ActionView], index: int) -> ActionView | None:
    return actions[index] if index < len(actions) else None


def _call_diff(left: ActionView | None, right: ActionView | None) -> CallDiff:
    if left is None or right is None:
        return CallDiff(left, right)
    a, b = left.arguments, right.arguments
    same = [k for k in a.keys() & b.keys() if canonical_arguments(a[k]) == canonical_arguments(b[k])]
    changed = tuple(sorted((a.keys() | b.keys()) - set(same)))
    return CallDiff(left, right, changed)


def metric_rows(
    left: RunMetrics, right: RunMetrics, left_turn: TurnView, right_turn: TurnView
) -> tuple[MetricRow, ...]:
    """Model, protocol, status, steps, tool calls, tool errors, tokens, cost and duration of both runs."""
    lu, ru = left.usage, right.usage
    return (
        MetricRow("model", left.model or "?", right.model or "?"),
        MetricRow("protocol", left_turn.protocol or "?", right_turn.protocol or "?"),
        MetricRow("status", left.status or "unfinished", right.status or "unfinished"),
        MetricRow("steps", str(left.steps), str(right.steps), _delta(right.steps - left.steps)),
        MetricRow(
            "tool calls", str(left.tool_calls), str(right.tool_calls), _delta(right.tool_calls - left.tool_calls)
        ),
        MetricRow(
            "tool errors", str(left.tool_errors), str(right.tool_errors), _delta(right.tool_errors - left.tool_errors)
        ),
        MetricRow(
            "tokens",
            format_tokens(lu.total_tokens, estimated=lu.estimated),
            format_tokens(ru.total_tokens, estimated=ru.estimated),
            _delta(
                ru.total_tokens - lu.total_tokens, lambda n: format_tokens(n, estimated=lu.estimated or ru.estimated)
            ),
        ),
        MetricRow(
            "cost",
            format_cost(left.cost, estimated=lu.estimated),
            format_cost(right.cost, estimated=ru.estimated),
            _delta(right.cost - left.cost, format_cost) if left.cost is not None and right.cost is not None else "",
        ),
        MetricRow(
            "duration",
            format_duration(left.duration_ms),
            format_duration(right.duration_ms),
            _delta(right.duration_ms - left.duration_ms, format_duration),
        ),
    )


def _delta(difference: float, show: Any = str) -> str:
    """``+x`` / ``-x`` (shown with ``show``), or "" when equal."""
    if difference == 0:
        return ""
    return ("+" if difference > 0 else "-") + show(abs(difference))


def compare_turns(left: TurnView, right: TurnView, left_metrics: RunMetrics, right_metrics: RunMetrics) -> Comparison:
    """The comparison of two folded turns with their metrics."""
    return Comparison(
        left,
        right,
        align_steps(left, right),
        metric_rows(left_metrics, right_metrics, left, right),
        left_metrics.prices,
    )
