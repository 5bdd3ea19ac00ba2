"""Conversation memory across turns, its budget, the bounded scratchpad, and rebuilding from events."""

from __future__ import annotations

import re

from agent_core import Agent, ConversationMemory
from agent_core.engine.context_window import Turn, digest_summary
from agent_core.events import ModelFinished, RunFinished, with_full_messages
from agent_core.models.chat import Message, ModelRequest
from agent_core.testing import FunctionModel, ScriptedModel
from tests.core.helpers import answer, react


def arithmetic_model(messages: list[Message], request: ModelRequest) -> str:
    """Understands 'what is A*B' and 'add N to that result' using only what is in its context."""
    last = messages[-1]["content"]
    if last.startswith("Observation: "):
        return answer("I have it.", last.removeprefix("Observation: "))
    if m := re.search(r"what is (\d+)\s*\*\s*(\d+)", last, re.I):
        return react("multiply", "calculator", expression=f"{m[1]}*{m[2]}")
    if m := re.search(r"add (\d+) to that result", last, re.I):
        previous = [x["content"] for x in messages if x["role"] == "assistant"][-1].removeprefix("Final Answer: ")
        return react("add to the previous answer", "calculator", expression=f"{previous}+{m[1]}")
    return answer("?", "I don't know")


def test_follow_up_question_uses_the_previous_answer() -> None:
    agent = Agent(FunctionModel(arithmetic_model))
    first = list(agent.run("What is 6*7?"))
    second = list(agent.run("Add 10 to that result"))
    assert first[-1].final_answer == "42"
    assert second[-1].final_answer == "52"
    request = next(e for e in second if isinstance(e, ModelFinished)).messages
    assert [m["role"] for m in request[:4]] == ["system", "user", "assistant", "user"]
    assert request[1:4] == (
        {"role": "user", "content": "What is 6*7?"},
        {"role": "assistant", "content": "Final Answer: 42"},
        {"role": "user", "content": "Add 10 to that result"},
    )


def test_memory_rebuilt_from_events_continues_the_conversation() -> None:
    events = list(Agent(FunctionModel(arithmetic_model)).run("What is 6*7?"))
    agent = Agent(FunctionModel(arithmetic_model), memory=ConversationMemory.from_events(events))
    assert list(agent.run("add 1 to that result"))[-1].final_answer == "43"


def test_old_turns_are_summarised_within_the_budget() -> None:
    memory = ConversationMemory(budget_tokens=400, recent_turns=3)
    for i in range(40):
        memory.add(Turn(f"question number {i} " + "detail " * 20, f"answer {i}"))
    _older, recent = memory.split()
    assert [t.answer for t in recent] == ["answer 37", "answer 38", "answer 39"]
    summary = memory.summary()
    assert summary is not None and len(summary) <= 400
    assert summary.startswith("(") and "earlier exchanges omitted)" in summary
    assert "answer 36" in summary and "answer 0" not in summary


def test_recent_turns_shrink_when_they_exceed_the_budget() -> None:
    memory = ConversationMemory(budget_tokens=200, recent_turns=6)
    for i in range(4):
        memory.add(Turn("q" * 400, f"a{i}"))
    _, recent = memory.split()
    assert [t.answer for t in recent] == ["a3"]


def test_summary_goes_into_the_system_prompt() -> None:
    memory = ConversationMemory([Turn(f"q{i}", f"a{i}") for i in range(10)], recent_turns=2)
    model = ScriptedModel([answer("t", "ok")])
    list(Agent(model, memory=memory).run("next"))
    messages = model.requests[0].messages
    assert "Summary of the earlier conversation:\n- Q: q0 → A: a0" in messages[0]["content"]
    assert [m["content"] for m in messages[1:]] == ["q8", "Final Answer: a8", "q9", "Final Answer: a9", "next"]


def test_failed_turns_are_remembered_honestly() -> None:
    assert digest_summary([Turn("q", None, "max_steps")], 100) == "- Q: q → A: (no answer: max_steps)"


def test_a_failing_custom_summarizer_falls_back_to_the_digest() -> None:
    def broken(turns, limit):  # type: ignore[no-untyped-def]
        raise RuntimeError("model down")

    memory = ConversationMemory([Turn(f"q{i}", f"a{i}") for i in range(5)], recent_turns=1, summarizer=broken)
    assert memory.summary() == "- Q: q0 → A: a0\n- Q: q1 → A: a1\n- Q: q2 → A: a2\n- Q: q3 → A: a3"


def test_scratchpad_keeps_recent_steps_and_condenses_old_ones() -> None:
    replies = [react(f"step {i}", "calculator", expression=f"{i}+{i}") for i in range(1, 6)] + [answer("done", "ok")]
    model = ScriptedModel(replies)
    list(Agent(model, keep_steps=2).run("many steps"))
    last = model.requests[-1].messages
    assert last[-5]["content"] == (
        "Earlier steps of this task, condensed (most recent last):\n"
        'step 1: calculator({"expression": "1+1"}) → 2\n'
        'step 2: calculator({"expression": "2+2"}) → 4\n'
        'step 3: calculator({"expression": "3+3"}) → 6'
    )
    assert [m["content"] for m in last[-4:]] == [
        'Thought: step 4\nAction: calculator\nAction Input: {"expression": "4+4"}',
        "Observation: 8",
        'Thought: step 5\nAction: calculator\nAction Input: {"expression": "5+5"}',
        "Observation: 10",
    ]


def test_context_stays_bounded_over_a_long_run() -> None:
    steps = 300
    model = ScriptedModel(
        [react("again", "calculator", expression=f"{i}+1") for i in range(steps)], stream_chunks=False
    )
    events = list(Agent(model, max_steps=steps, keep_steps=4).run("long"))
    sizes = [len(e.messages) for e in with_full_messages(events) if isinstance(e, ModelFinished)]
    assert max(sizes) == 1 + 1 + 1 + 8 * 2  # system, question, condensed note, at most 2 × keep_steps steps
    assert min(sizes[20:]) == 1 + 1 + 1 + 4 * 2  # just after a batch is condensed
    assert len(model.requests[-1].messages[-9]["content"]) < 30 * 200


def test_resume_rebuilds_the_exact_context() -> None:
    replies = [
        react("one", "calculator", expression="1+1"),
        "not the format",
        react("two", "calculator", expression="2+2"),
        answer("done", "4"),
    ]
    straight = ScriptedModel(list(replies))
    full = list(Agent(straight).run("resume me"))
    # Simulate a crash during step 4: keep events up to the last complete step (3).
    cut = next(i for i, e in enumerate(full) if getattr(e, "step", None) == 4)
    resumed_model = ScriptedModel([answer("done", "4")])
    tail = list(Agent(resumed_model).resume(full[:cut]))
    assert tail[0].type == "run_resumed" and tail[0].from_step == 4
    assert tail[-1].status == "completed" and tail[-1].run_id == full[0].run_id
    assert resumed_model.requests[0].messages == straight.requests[3].messages
    assert (tail[-1].steps, tail[-1].tool_calls) == (4, 2)


def test_resume_redoes_a_step_whose_tools_did_not_finish() -> None:
    full = list(Agent(ScriptedModel([react("one", "calculator", expression="1+1"), answer("d", "2")])).run("x"))
    cut = next(i for i, e in enumerate(full) if e.type == "tool_finished")
    model = ScriptedModel([react("one", "calculator", expression="1+1"), answer("d", "2")])
    tail = list(Agent(model).resume(full[:cut]))
    assert tail[0].from_step == 1
    assert isinstance(tail[-1], RunFinished) and tail[-1].final_answer == "2"


def test_model_finished_stores_only_what_changed_and_the_full_requests_come_back() -> None:
    import json

    replies = [react(f"step {i}", "calculator", expression=f"{i}+1") for i in range(12)] + [answer("done", "ok")]
    model = ScriptedModel(replies)
    events = list(Agent(model, keep_steps=3, max_steps=20).run("compact me"))
    finished = [e for e in events if isinstance(e, ModelFinished)]
    assert finished[0].messages_kept == 0
    assert all(e.messages_kept > 0 for e in finished[1:])
    assert [len(e.messages) for e in finished[1:3]] == [2, 2]  # the step's reply and its observation
    assert max(len(e.messages) for e in finished) <= 1 + 3 * 2  # once condensing starts: the note and kept steps
    full = [e for e in with_full_messages(events) if isinstance(e, ModelFinished)]
    assert [list(e.messages) for e in full] == [r.messages for r in model.requests]
    # The compact log is a small fraction of storing every request whole.
    compact = sum(len(json.dumps(e.to_dict())) for e in finished)
    whole = sum(len(json.dumps(e.to_dict())) for e in full)
    assert compact < whole / 3
