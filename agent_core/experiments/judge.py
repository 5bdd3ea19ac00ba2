"""LLM-as-judge: a judge model reads the question, the answer and a rubric, and says PASS or FAIL, and why.

The judge's call is an ordinary recorded run in the item's own session (after the item's run), so it is
inspectable like any step: its prompt, its reply, its tokens. Its verdict is the first word of its answer.
"""

from __future__ import annotations

import re

from agent_core.engine.agent import Agent
from agent_core.events import RunFinished
from agent_core.experiments.items import DatasetItem
from agent_core.experiments.scores import Judge, RunFacts, Score
from agent_core.models.chat import ChatModel
from agent_core.runtime.session_runs import run_in_session
from agent_core.store import SessionStore

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
