"""What a protocol decides for the loop: how to prompt, how to read a reply, how to feed results back."""

from __future__ import annotations

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

    @abstractmethod
    def correction_message(self, problem: str, tools: Sequence[Tool]) -> Message:
        """The message sent after a reply that was neither an action nor a final answer."""
