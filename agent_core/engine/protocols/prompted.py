"""What the protocols that write tools and the reply format into the prompt share (ReAct text and JSON).

The system prompt's layout, the ``Observation:`` messages, the correction after an unusable reply and the
one-call decision are the same for both; each protocol brings its format, rules, example and tool listing.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

from agent_core.engine.protocols.protocol import AgentProtocol, Decision
from agent_core.models.chat import Message, ToolCall
from agent_core.tools.runner import CallRequest
from agent_core.tools.tool import Tool

DEFAULT_INTRO = "You are Sparrow: you solve tasks step by step with tools."
NO_TOOLS = "(no tools are available: answer directly)"


class PromptedProtocol(AgentProtocol):
    """A protocol whose tools and reply format live in the system prompt, and whose results are Observations."""

    reply_format: str = ""
    """How a reply must look (restated after an unusable one)."""
    rules: str = ""
    example: str = ""

    @abstractmethod
    def describe(self, tool: Tool) -> str:
        """The tool's entry in the prompt's list: name, description, parameters."""

    def system_prompt(self, tools: Sequence[Tool], instructions: str | None = None) -> str:
        """Role, tools with their parameter schemas, the reply format, rules and a worked example."""
        listing = "\n".join(self.describe(t) for t in tools) or NO_TOOLS
        sections = (instructions or DEFAULT_INTRO, f"You have these tools:\n{listing}", self.reply_format)
        return "\n\n".join((*sections, self.rules, self.example))

    def observation_messages(self, results: Sequence[tuple[str, str, str]]) -> list[Message]:
        """One user message starting with ``Observation:`` per result."""
        return [{"role": "user", "content": f"Observation: {output}"} for _, _, output in results]

    def correction_message(self, problem: str, tools: Sequence[Tool]) -> Message:
        """Name the problem and restate the format and the valid tools."""
        names = ", ".join(t.name for t in tools) or "(none)"
        content = f"Your last reply could not be used: {problem}.\n{self.reply_format}\n\nValid tool names: {names}."
        return {"role": "user", "content": content}


def one_call(
    thought: str, tool: str, arguments: dict[str, Any], assistant: Message, problem: str | None = None
) -> Decision:
    """The decision to make one tool call (``call_1``), as a prompted protocol reads it from a reply."""
    raw = json.dumps(arguments, ensure_ascii=False)
    return Decision(
        thought=thought,
        calls=(CallRequest("call_1", tool, arguments, problem),),
        assistant=assistant,
        tool_calls=(ToolCall("call_1", tool, raw),),
    )
