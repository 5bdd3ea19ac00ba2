"""What a protocol decides for the loop: how to prompt, how to read a reply, how to feed results back.

``AgentProtocol`` is the interface; ``PromptedProtocol`` is what the protocols that write the tools and the reply
format into the prompt (ReAct text and JSON) share: the system prompt's layout, the ``Observation:`` messages,
the correction after an unusable reply and the one-call decision. Each brings its format, rules, example and
tool listing.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent_core.models.chat import Completion, Message, ToolCall
from agent_core.tools.runner import CallRequest
from agent_core.tools.tool import Tool, ToolSet


@dataclass(frozen=True)
class Decision:
    """The loop's reading of one model reply."""

    thought: str = ""
    calls: tuple[CallRequest, ...] = ()
    final_answer: str | None = None
    format_error: str | None = None
    assistant: Message | None = None
    """The assistant message to keep in the context (text already cut where needed)."""
    tool_calls: tuple[ToolCall, ...] = ()
    """The requested calls as stored in the ModelFinished event."""


@dataclass(frozen=True)
class Narrowing:
    """What the request after repeated calls is narrowed around: the repeated calls, and whether they failed."""

    repeated_tools: tuple[str, ...]
    """The tools whose calls were repeated in the run."""
    failed: bool = False
    """True when the last repeated call had failed: its result cannot answer, another step is needed."""
    other_tools: tuple[str, ...] = ()
    """The tools offered at the step that were not repeated (a failed call may give way to one of them)."""


class AgentProtocol(ABC):
    """One way of talking to a model about tools (ReAct text, or native tool calls)."""

    name: str = ""
    answer_now: str = "Reply now with the final answer."
    """What the model is asked for after repeated calls (in the protocol's own reply format)."""
    narrowing: str = "a message asks for the final answer"
    """How :meth:`narrowed_options` narrows a request, for the trace (see :meth:`describe_narrowing`)."""

    @abstractmethod
    def system_prompt(self, tools: Sequence[Tool], instructions: str | None = None) -> str:
        """The system message: role, tools and the reply format."""

    @abstractmethod
    def request_options(self, tools: Sequence[Tool]) -> dict[str, Any]:
        """Extra request fields: ``stop`` sequences or ``tools`` schemas."""

    def narrowed_options(self, tools: Sequence[Tool], narrowing: Narrowing) -> dict[str, Any]:
        """Request fields after repeated calls: what lets the model give only a final answer (default: as usual)."""
        return self.request_options(tools)

    def describe_narrowing(self, narrowing: Narrowing) -> str:
        """How the request after ``narrowing`` is narrowed, for the trace."""
        return self.narrowing

    def answer_request(self, repeat: str, narrowing: Narrowing) -> Message:
        """The message after repeated calls: ``repeat`` names the call and its result; it asks for the answer."""
        return {"role": "user", "content": f"{repeat}\n{self.answer_now}"}

    def cut_index(self, text: str) -> int | None:
        """Where streamed text must be cut (a model-written Observation), or None."""
        return None

    @abstractmethod
    def interpret(self, completion: Completion, tools: ToolSet) -> Decision:
        """Read a reply as a final answer, tool calls, or a format error. Never raises."""

    @abstractmethod
    def assistant_message(self, text: str, tool_calls: Sequence[dict[str, Any]]) -> Message:
        """The assistant message for the context, rebuilt from what a ModelFinished event stores."""

    @abstractmethod
    def observation_messages(self, results: Sequence[tuple[str, str, str]]) -> list[Message]:
        """Messages carrying ``(call_id, tool, output)`` results back to the model."""

    def history_answer(self, answer: str) -> str:
        """How an earlier turn's answer is shown in the context (ReAct keeps its own format)."""
        return answer

    def streamed_answer(self, text: str) -> str:
        """The part of a reply being streamed that is its final answer so far (here: all of it, as text)."""
        return text

    @abstractmethod
    def correction_message(self, problem: str, tools: Sequence[Tool]) -> Message:
        """The message sent after a reply that was neither an action nor a final answer."""


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
