"""Re-sampling a step (recorded, one click from a branch) and the tree of a session's branches."""

from __future__ import annotations

from agent_core.engine.agent import Agent
from agent_core.events import ModelFinished, ModelSampled, with_full_messages
from agent_core.runtime.branches import branch_tree, edit_from_sample, resample_step, spread
from agent_core.runtime.fork import StepEdit, fork_run
from agent_core.runtime.sessions import run_in_session
from agent_core.store import SessionStore
from agent_core.testing import FunctionModel, ScriptedModel
from agent_core.tools import builtin_tools
from tests.core.helpers import answer, react

SUM = react("Add.", "calculator", expression="2+2")


def seeded() -> tuple[SessionStore, str, str]:
    store = SessionStore.open("sqlite://")
    session = store.sessions.create()
    agent = Agent(ScriptedModel([SUM, answer("Done.", "4")]), builtin_tools())
    events = list(run_in_session(store, session.id, agent, "2+2?"))
    return store, session.id, events[0].run_id


def test_samples_use_the_steps_exact_messages_and_are_recorded_on_it() -> None:
    store, sid, rid = seeded()
    before = store.log.events(sid)
    sent = []
    replies = iter([SUM, answer("Guess.", "5"), SUM])

    def reply(messages, request):  # type: ignore[no-untyped-def]
        sent.append((list(messages), request.temperature))
        return next(replies)

    samples = resample_step(store, sid, rid, 2, FunctionModel(reply), 3, temperature=0.9)
    asked = next(e for e in with_full_messages(before) if isinstance(e, ModelFinished) and e.step == 2)
    assert [m for m, _ in sent] == [list(asked.messages)] * 3 and len(asked.messages) == 4
    assert [t for _, t in sent] == [0.9] * 3
    assert store.log.events(sid)[: len(before)] == before
    assert [e for e in store.log.events(sid) if isinstance(e, ModelSampled)] == samples
    assert spread(samples) == [('calculator {"expression":"2+2"}', 2), ("answer: 5", 1)]
    assert edit_from_sample(samples[1]) == StepEdit("answer", text="5")
    agent = Agent(ScriptedModel([]), builtin_tools())
    _, events = fork_run(store, sid, rid, 2, agent, edit=edit_from_sample(samples[1]))
    assert list(events)[-1].final_answer == "5"  # type: ignore[attr-defined]


def test_the_branches_tree_has_forks_and_forks_of_forks_with_status_and_answer() -> None:
    store, sid, rid = seeded()
    first, events = fork_run(
        store, sid, rid, 2, Agent(ScriptedModel([]), builtin_tools()), edit=StepEdit("answer", text="four")
    )
    branch_run = list(events)[-1].run_id
    second, events = fork_run(
        store, first.id, branch_run, 1, Agent(ScriptedModel([answer("Hm.", "IV")]), builtin_tools())
    )
    list(events)
    tree = branch_tree(store, second.id)
    shape = [(depth, b.session.id, b.status, b.answer) for depth, b in tree.walk()]
    assert shape == [(0, sid, "completed", "4"), (1, first.id, "completed", "four"), (2, second.id, "completed", "IV")]
    assert tree.children[0].forked is not None and tree.children[0].forked.at_step == 2
