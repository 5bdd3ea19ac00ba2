"""Comparing two turns: steps aligned on what they did, differing calls and arguments, a metrics table."""

from __future__ import annotations

from agent_core.engine.agent import Agent
from agent_core.testing import Reply, ScriptedModel
from agent_core.tools import builtin_tools
from agent_core.views.compare import compare_turns, step_signature
from agent_core.views.metrics import turn_metrics
from agent_core.views.transcript import Transcript
from agent_core.views.turns import TurnView
from tests.core.helpers import answer, react

QUESTION = "What weekday is 150 days after 2024-05-20, and what is 17.5% of 2340?"
DATE = {"operation": "add", "date": "2024-05-20", "days": 150}


def turn(replies: list[str | Reply], protocol: str = "react", model: str = "m-left") -> TurnView:
    agent = Agent(ScriptedModel(replies, name=model), builtin_tools(), protocol=protocol)
    (folded,) = Transcript.from_events(agent.run(QUESTION)).turns
    return folded


def shape(left: TurnView, right: TurnView) -> list[tuple[object, ...]]:
    """Per aligned pair: (left step, right step, differs, [(left tool, right tool, changed args)])."""
    comparison = compare_turns(left, right, turn_metrics(left), turn_metrics(right))
    return [
        (
            p.left.number if p.left else None,
            p.right.number if p.right else None,
            p.differs,
            [(c.left and c.left.tool, c.right and c.right.tool, c.changed_arguments) for c in p.calls],
        )
        for p in comparison.steps
    ]


LEFT = [
    react("Date first.", "date_calculator", **DATE),
    react("Now the percentage.", "calculator", expression="0.175 * 2340"),
    answer("Done.", "Thursday; 409.5"),
]


def test_the_same_run_twice_differs_nowhere() -> None:
    assert shape(turn(LEFT), turn(LEFT)) == [
        (1, 1, False, [("date_calculator", "date_calculator", ())]),
        (2, 2, False, [("calculator", "calculator", ())]),
        (3, 3, False, []),
    ]


def test_changed_arguments_an_extra_step_and_parallel_calls_are_aligned() -> None:
    right = [
        Reply.call("calculator", expression="17.5 / 100 * 2340"),
        Reply(tool_calls=(("date_calculator", {**DATE, "days": 151}), ("calculator", {"expression": "1+1"}))),
        "Thursday; 409.5",
    ]
    left, other = turn(LEFT), turn(right, protocol="tools", model="m-right")
    assert [step_signature(s) for s in other.steps] == [("calculator",), ("date_calculator", "calculator"), ("answer",)]
    assert shape(left, other) == [
        (1, None, True, []),
        (2, 1, True, [("calculator", "calculator", ("expression",))]),
        (None, 2, True, []),
        (3, 3, True, []),  # the same answer, but the native reply has no thought: a changed thought
    ]


def test_a_different_tool_at_the_same_place_and_a_missing_call_differ() -> None:
    right = [
        Reply(tool_calls=(("calculator", {"expression": "150 / 7"}), ("calculator", {"expression": "2"}))),
        Reply.call("calculator", expression="0.175 * 2340"),
        "Thursday; 409.5",
    ]
    assert shape(turn(LEFT), turn(right, protocol="tools"))[:2] == [
        (
            1,
            1,
            True,
            [("date_calculator", "calculator", ("date", "days", "expression", "operation")), (None, "calculator", ())],
        ),
        (2, 2, True, [("calculator", "calculator", ())]),  # same call, the thought differs
    ]


def test_metrics_table_marks_what_differs() -> None:
    left = turn(LEFT)
    right = turn([LEFT[0], LEFT[2]], model="m-right")
    rows = {r.name: r for r in compare_turns(left, right, turn_metrics(left), turn_metrics(right)).metrics}
    assert list(rows) == [
        "model",
        "protocol",
        "status",
        "steps",
        "tool calls",
        "tool errors",
        "tokens",
        "cost",
        "duration",
    ]
    assert (rows["steps"].left, rows["steps"].right, rows["steps"].delta) == ("3", "2", "-1")
    assert (rows["tool calls"].left, rows["tool calls"].right, rows["tool calls"].delta) == ("2", "1", "-1")
    assert [n for n in ("model", "steps", "tool calls", "tokens") if rows[n].differs] == [
        "model",
        "steps",
        "tool calls",
        "tokens",
    ]
    assert not any(rows[n].differs for n in ("protocol", "status", "tool errors", "cost"))
    assert rows["tokens"].delta.startswith("-~") and rows["cost"].delta == ""


def test_different_answers_are_never_the_same_step_and_tool_errors_are_marked() -> None:
    left = turn([answer("Sure.", "81")])
    right = turn([answer("Sure.", "refused")])
    comparison = compare_turns(left, right, turn_metrics(left), turn_metrics(right))
    (pair,) = comparison.steps
    assert (pair.status, pair.changed_fields, comparison.first_divergence) == ("changed", ("answer",), 0)
    answer_diff = pair.fields[4]
    assert answer_diff.pieces() == [("delete", "81"), ("insert", "refused")]
    failing = turn([react("Try.", "calculator", expression="1/0"), answer("Oops.", "none")])
    fine = turn([react("Try.", "calculator", expression="1/0"), answer("Oops.", "none")])
    same = compare_turns(failing, fine, turn_metrics(failing), turn_metrics(fine))
    assert [p.status for p in same.steps] == ["same", "same"] and same.first_divergence is None
    assert "calculator:" in same.steps[0].fields[5].left  # the tool error is a field of its own
    assert "steps" not in comparison.summary()  # one step each: only what differs is in the line
