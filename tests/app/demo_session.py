"""A recorded session that shows every way a step can end: tools, a failing tool, format retries, a repeated
action, a malformed native call, the step limit, a user's Stop and a question that looks like markdown.

Used by the Chat page AppTests and the browser screenshots; each run is real (an Agent on scripted replies).
"""

from __future__ import annotations

from typing import Any

from agent_core.engine.agent import Agent, AgentSettings
from agent_core.guards.limits import CancelToken
from agent_core.models.chat import Message, ModelRequest
from agent_core.runtime.session_runs import run_in_session
from agent_core.store import SessionStore
from agent_core.testing import FunctionModel, Reply, ScriptedModel
from agent_core.testing.rule_llm import TWO_TOOLS
from agent_core.tools import builtin_tools
from tests.core.helpers import TWO_TOOLS_REPLIES, answer, react

MODEL = "gpt-4o-mini"
MARKDOWN_QUESTION = "Is __import__('os') safe to eval? **bold** :red[red]"
FAILING_TOOL = (
    "What is 1 / 0?",
    [react("Divide.", "calculator", expression="1 / 0"), answer("It failed.", "Division by zero is undefined.")],
)
RETRIES = (
    "What is 2 + 2?",
    [
        "I think the answer is four but I will not use the format.",
        react("Add.", "calculator", expression="2 + 2"),
        react("Check again.", "calculator", expression="2 + 2"),
        answer("Sure now.", "2 + 2 = 4."),
    ],
)
LIMIT = (
    "Count to a hundred with the calculator.",
    [react("One.", "calculator", expression="1 + 0"), react("Two.", "calculator", expression="1 + 1")],
)


def _scripted(replies: list[Any], **options: Any) -> Agent:
    return Agent(ScriptedModel(replies, name=MODEL), tools=builtin_tools(), **options)


def _stopped_agent(cancel: CancelToken) -> Agent:
    """The user presses Stop while the model is writing its first reply."""

    def reply(messages: list[Message], request: ModelRequest) -> Reply:
        cancel.cancel()
        return Reply("Thought: this will take a while")

    return Agent(FunctionModel(reply, name=MODEL), tools=builtin_tools())


def _malformed_native() -> Agent:
    replies = [Reply(tool_calls=(("calculator", '{"expression": "2 +'),)), Reply(text="I could not call it.")]
    return _scripted(replies, protocol="tools")


def record_demo(store: SessionStore) -> str:
    """Record the demo session; returns its id."""
    session = store.sessions.create()
    runs: list[tuple[str, Agent, CancelToken | None]] = [
        (TWO_TOOLS, _scripted(TWO_TOOLS_REPLIES), None),
        (FAILING_TOOL[0], _scripted(FAILING_TOOL[1]), None),
        (RETRIES[0], _scripted(RETRIES[1]), None),
        ("What is 2 + 3? (native call)", _malformed_native(), None),
        (LIMIT[0], _scripted(LIMIT[1], settings=AgentSettings(max_steps=2)), None),
    ]
    cancel = CancelToken()
    runs.append(("Tell me a long story.", _stopped_agent(cancel), cancel))
    runs.append((MARKDOWN_QUESTION, _scripted([answer("Plain.", "No: never eval untrusted text.")]), None))
    for question, agent, token in runs:
        list(run_in_session(store, session.id, agent, question, cancel=token))
    return session.id
