"""A pinned tool is offered every step, even when the question does not match it."""

from __future__ import annotations

from agent_core import Agent
from agent_core.events import StepStarted
from agent_core.testing import Reply, ScriptedModel
from agent_core.tools import builtin_tools


def test_a_pinned_tool_is_offered_though_the_question_does_not_match_it() -> None:
    tools = builtin_tools()
    last = tools[-1].name
    model = ScriptedModel([Reply("ok", usage=(1, 1))])
    agent = Agent(model, tools, protocol="tools", max_tools=1, pinned_tools=(last,))
    step = next(e for e in agent.run("what is 2 + 3 times 7 with the calculator") if isinstance(e, StepStarted))
    assert step.offered_tools == (last,)
