"""Native tool calling (OpenAI ``tools`` / ``tool_calls``): the model's text or reasoning is the Thought."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent_core.engine.protocols.protocol import AgentProtocol, Decision, Narrowing
from agent_core.guards import json_limits
from agent_core.models.chat import Completion, Message
from agent_core.tools.runner import CallRequest
from agent_core.tools.tool import Tool, ToolSet


class NativeToolsProtocol(AgentProtocol):
    """For models with function calling; parallel calls are run concurrently by the loop."""

    name = "tools"
    answer_now = "Reply now with the final answer as plain text, without calling a tool."
    narrowing = 'tool_choice "none": no tool may be called'

    def system_prompt(self, tools: Sequence[Tool], instructions: str | None = None) -> str:
        """Role and guidance; the tool schemas travel in the request's ``tools`` field."""
        intro = instructions or "You are Sparrow, a careful assistant that solves tasks step by step with tools."
        return (
            f"{intro}\n\nUse the provided tools for calculations, dates, the current time and facts you are "
            "unsure of, instead of guessing. Before calling tools, say briefly what you are going to do and why. "
            "Independent calls may be made in parallel. When a tool fails, read the error and correct the call "
            "or try another way. When you have enough information, reply with the final answer as plain text, "
            "in the language of the question."
        )

    def request_options(self, tools: Sequence[Tool]) -> dict[str, Any]:
        """The tool schemas, when there are tools."""
        return {"tools": [t.schema for t in tools]} if tools else {}

    def narrowed_options(self, tools: Sequence[Tool], narrowing: Narrowing) -> dict[str, Any]:
        """The same tools with ``tool_choice: "none"``: the server lets the model answer only in text."""
        return {"tools": [t.schema for t in tools], "extra": {"tool_choice": "none"}} if tools else {}

    def interpret(self, completion: Completion, tools: ToolSet) -> Decision:
        """Tool calls if any; otherwise the text is the final answer; empty replies are format errors."""
        thought = completion.text.strip() or completion.reasoning.strip()
        if completion.tool_calls:
            calls = tuple(_request(c.id, c.name, c.arguments, tools.get(c.name)) for c in completion.tool_calls)
            raw = tuple(c.to_dict() for c in completion.tool_calls)
            return Decision(
                thought=thought,
                calls=calls,
                assistant=self.assistant_message(completion.text, raw),
                tool_calls=completion.tool_calls,
            )
        answer = completion.text.strip()
        if answer:
            return Decision(
                thought=completion.reasoning.strip(),
                final_answer=answer,
                assistant=self.assistant_message(completion.text, ()),
            )
        return Decision(
            thought=thought,
            format_error="the reply has neither text nor a tool call",
            assistant=self.assistant_message(completion.text, ()),
        )

    def assistant_message(self, text: str, tool_calls: Sequence[dict[str, Any]]) -> Message:
        """An assistant message with its ``tool_calls`` in OpenAI shape."""
        message: Message = {"role": "assistant", "content": text or None}
        if tool_calls:
            message["tool_calls"] = [
                {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
                for c in tool_calls
            ]
        return message

    def observation_messages(self, results: Sequence[tuple[str, str, str]]) -> list[Message]:
        """One ``tool`` message per call, in the order of the calls."""
        return [{"role": "tool", "tool_call_id": call_id, "content": output} for call_id, _, output in results]

    def correction_message(self, problem: str, tools: Sequence[Tool]) -> Message:
        """Ask for either a tool call or a plain-text answer."""
        names = ", ".join(t.name for t in tools) or "(none)"
        return {
            "role": "user",
            "content": f"Your last reply could not be used: {problem}. Either call one of the tools "
            f"({names}) or reply with the final answer as plain text.",
        }


def _request(call_id: str, name: str, arguments: str, tool: Tool | None) -> CallRequest:
    text = (arguments or "").strip()
    if not text:
        return CallRequest(call_id, name, {})
    try:
        value = json_limits.loads(text)
    except json.JSONDecodeError as exc:
        return CallRequest(call_id, name, {}, f"the arguments for {name} are not valid JSON ({exc.msg})")
    if isinstance(value, dict):
        return CallRequest(call_id, name, value)
    single = tool.single_param if tool is not None else None
    if single is not None:
        return CallRequest(call_id, name, {single: value})
    return CallRequest(call_id, name, {}, f"the arguments for {name} must be a JSON object")
