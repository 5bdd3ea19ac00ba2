"""Scorers: each built-in check passes and fails with its one-sentence reason; custom scorers; the judge."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.events import Event, ModelFinished, RunFinished, ToolStarted, Usage
from agent_core.experiments import DatasetItem, Score, scorer
from agent_core.experiments.scoring import (
    RunFacts,
    ScoringContext,
    custom_score,
    failure_of,
    load_scorers,
    numbers_in,
    parse_verdict,
    recorded_judge,
    score_check,
)
from agent_core.store import SessionStore
from agent_core.testing import ScriptedModel
from tests.core.helpers import answer


def run_events(text: str, *, tools: tuple[str, ...] = (), steps: int = 1, status: str = "completed") -> list[Event]:
    events: list[Event] = [ToolStarted(run_id="r", step=1, call_id=f"c{i}", tool=t) for i, t in enumerate(tools)]
    events.append(ModelFinished(run_id="r", step=steps, text=text))
    events.append(
        RunFinished(
            run_id="r",
            status=status,
            final_answer=text if status == "completed" else None,
            steps=steps,  # type: ignore[arg-type]
            usage=Usage(100, 20),
            duration_ms=1500.0,
        )
    )
    return events


def score(spec: dict[str, object], text: str, **kwargs: object) -> Score:
    item = DatasetItem(question="q", expect=spec)
    events = run_events(text, **kwargs)  # type: ignore[arg-type]
    return score_check(item.checks[0], ScoringContext(item, RunFacts.of(events, cost=0.002), events))


def test_numbers_are_read_inside_sentences() -> None:
    assert numbers_in("2^20 is 1,048,576 bytes and 4.44 is the mean; −3 too") == [2, 20, 1048576, 4.44, -3]
    assert numbers_in("１２３ and 1e6") == [123, 1e6]


@pytest.mark.parametrize(
    ("spec", "text", "passed", "reason"),
    [
        ({"exact": "Paris"}, "  paris. ", True, "the answer is “Paris”"),
        ({"exact": "Paris"}, "Lyon", False, "expected “Paris”, got “Lyon”"),
        ({"contains": "391"}, "17 × 23 = 391.", True, "the answer contains “391”"),
        ({"regex": r"thurs(day)?"}, "It is a Thursday", True, "the answer matches /thurs(day)?/ at “Thursday”"),
        (
            {"number": 1048576},
            "That is 1,048,576 bytes.",
            True,
            "the answer gives 1.04858e+06 (expected 1.04858e+06 ± 1e-09)",
        ),
        ({"number": 4.44, "tolerance": 0.01}, "about 4.449", True, "the answer gives 4.449 (expected 4.44 ± 0.01)"),
        ({"number": 36}, "15% of 240", False, "expected 36 ± 1e-09, the answer gives 15, 240"),
        ({"json_field": "a.0.b", "equals": 3}, '```json\n{"a": [{"b": 3}]}\n```', True, "a.0.b is 3"),
        ({"json_field": "sum", "equals": 42}, "forty-two", False, "the answer is not JSON (Expecting value)"),
    ],
)
def test_answer_checks(spec: dict[str, object], text: str, passed: bool, reason: str) -> None:
    result = score(spec, text)
    assert (result.passed, result.reason) == (passed, reason)


def test_run_checks_tools_steps_format_cost_latency() -> None:
    assert score({"tool_called": "calculator"}, "x", tools=("calculator",)).reason == "calculator was called 1 time(s)"
    assert not score({"tool_called": "calculator"}, "x").passed
    assert not score({"tool_not_called": "fetch_url"}, "x", tools=("fetch_url",)).passed
    assert score({"max_steps": 3}, "x", steps=3).reason == "3 step(s), at most 3 allowed"
    assert not score({"max_steps": 2}, "x", steps=3).passed
    assert score({"no_format_retries": True}, "x").passed
    assert score({"max_cost": 0.01}, "x").reason == "cost $0.002000, budget $0.010000"
    assert not score({"max_latency_ms": 1000}, "x").passed


def test_a_run_without_an_answer_fails_with_its_own_reason_and_failure() -> None:
    result = score({"contains": "391"}, "", steps=2, status="max_steps")
    assert (
        result.reason == "the run ended without an answer (max_steps: the run ended without a run_finished event)"
        or (result.reason.startswith("the run ended without an answer (max_steps"))
    )
    facts = RunFacts.of(run_events("", steps=2, status="max_steps"), None)
    assert failure_of(facts, False) == "max_steps" and failure_of(facts, True) is None


def test_custom_scorers_and_one_that_raises() -> None:
    @scorer
    def says_please(ctx: ScoringContext) -> tuple[bool, str]:
        return "please" in ctx.answer, "looked for 'please'"

    @scorer(name="broken")
    def broken(ctx: ScoringContext) -> bool:
        raise ZeroDivisionError("division by zero")

    assert score({"scorer": "says_please"}, "yes please").model_dump() == {
        "name": "says_please",
        "passed": True,
        "value": 1.0,
        "reason": "looked for 'please'",
        "error": False,
        "judge_run": None,
    }
    failed = score({"scorer": "broken"}, "x")
    assert (failed.passed, failed.error, failed.reason) == (
        False,
        True,
        "the scorer broken raised ZeroDivisionError: division by zero",
    )
    missing = score({"scorer": "nobody"}, "x")
    assert missing.error and "no custom scorer named 'nobody'" in missing.reason


def test_scorer_modules_load_like_plugin_tools(tmp_path: Path) -> None:
    module = tmp_path / "my_scorers.py"
    module.write_text(
        "from agent_core.experiments import scorer\n\n@scorer\ndef half(ctx):\n    return 0.5\n", encoding="utf-8"
    )
    assert load_scorers(str(module)) == []
    result = custom_score(
        "half", ScoringContext(DatasetItem(question="q", answer="a"), RunFacts.of(run_events("a"), None))
    )
    assert (result.passed, result.value) == (True, 0.5)
    assert "no such file" in load_scorers(str(tmp_path / "missing.py"))[0]


def test_the_judge_is_a_recorded_run_with_a_verdict_and_reason(tmp_path: Path) -> None:
    assert parse_verdict("PASS [0.8]: the weekday is right.") == (True, 0.8, "the weekday is right.")
    assert parse_verdict("FAIL - wrong date") == (False, 0.0, "wrong date")
    assert parse_verdict("I think it is fine") is None
    store = SessionStore.open(f"sqlite:///{tmp_path / 'j.db'}")
    session = store.sessions.create()
    judge_model = ScriptedModel([answer("Checking.", "FAIL: the answer names Wednesday, not Thursday.")], name="judge")
    judge = recorded_judge(store, session.id, judge_model)
    item = DatasetItem(question="What weekday is 150 days after 2024-05-20?", answer="Thursday")
    verdict = judge("The weekday must be right.", item, RunFacts.of(run_events("Wednesday"), None))
    assert (verdict.passed, verdict.reason) == (False, "the answer names Wednesday, not Thursday.")
    judged = [e for e in store.log.events(session.id) if isinstance(e, ModelFinished)]
    assert verdict.judge_run == f"{session.id}:{judged[0].run_id}"
    prompt = judged[0].messages[-1]["content"]
    assert "Answer:\nWednesday" in prompt and "Expected answer:\nThursday" in prompt
    assert "Rubric:\nThe weekday must be right." in prompt
