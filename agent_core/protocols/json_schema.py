"""Schema-constrained ReAct (protocol ``json``): every reply is a JSON object the server is asked to enforce.

For small local models that drift from the text format. The request carries ``response_format`` with the
JSON Schema of :func:`~agent_core.protocols.json_reply.reply_schema` (OpenAI, vLLM, llama.cpp server and
Ollama enforce it); the model layer falls back to ``json_object`` where only that is supported, and every
reply is read and checked here either way. Same loop, events and trace as the other protocols.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent_core.models.base import Completion, Message, ToolCall
from agent_core.protocols.base import AgentProtocol, Decision
from agent_core.protocols.json_reply import read_reply, response_format
from agent_core.tools.base import Tool, ToolSet
from agent_core.tools.runner import CallRequest

_FORMAT = """Reply with exactly one JSON object and nothing else, in one of these two shapes.

To use a tool:
{"thought": "<your reasoning about what to do next>",
 "action": {"tool": "<one tool name from the list>", "arguments": {<the tool's arguments>}}}

When you can answer:
{"thought": "<your reasoning>", "final_answer": "<the answer for the user>"}"""

_RULES = """Rules:
1. One step per reply: a thought with one action, or a thought with the final answer; never both.
2. "tool" must be one of the tool names listed above and "arguments" must match its parameters.
3. The system runs the tool and sends you its result as an Observation; never write one yourself.
4. For calculations, dates, current time or facts you are unsure of, use a tool instead of guessing.
5. Answer in the language of the question."""

_EXAMPLE = """Example:
Question: What is 17% of 2,340?
{"thought": "I need 0.17 * 2340, so I use the calculator.",
 "action": {"tool": "calculator", "arguments": {"expression": "0.17 * 2340"}}}
Observation: 397.8
{"thought": "I have the result.", "final_answer": "17% of 2,340 is 397.8."}"""


class JsonSchemaProtocol(AgentProtocol):
    """ReAct steps as JSON objects, constrained by a JSON Schema built from the offered tools."""

    name = "json"

    def system_prompt(self, tools: Sequence[Tool], instructions: str | None = None) -> str:
        """Role, tools with their parameter schemas, the JSON reply format, rules and an example."""
        intro = instructions or "You are Sparrow, a careful assistant that solves tasks step by step with tools."
        listing = "\n".join(_describe(t) for t in tools) or "(no tools are available: answer directly)"
        return f"{intro}\n\nYou have these tools:\n{listing}\n\n{_FORMAT}\n\n{_RULES}\n\n{_EXAMPLE}"

    def request_options(self, tools: Sequence[Tool]) -> dict[str, Any]:
        """The reply's JSON Schema as the request's ``response_format``."""
        return {"response_format": response_format(tools)}

    def interpret(self, completion: Completion, tools: ToolSet) -> Decision:
        """One action, a final answer, or a format problem; the whole reply stays in the context."""
        reply = read_reply(completion.text)
        assistant = self.assistant_message(completion.text, ())
        if reply.problem is not None:
            return Decision(thought=reply.thought, format_error=reply.problem, assistant=assistant)
        if reply.final_answer is not None:
            return Decision(thought=reply.thought, final_answer=reply.final_answer, assistant=assistant)
        assert reply.tool is not None
        arguments = json.dumps(reply.arguments, ensure_ascii=False)
        return Decision(
            thought=reply.thought,
            calls=(CallRequest("call_1", reply.tool, reply.arguments),),
            assistant=assistant,
            tool_calls=(ToolCall("call_1", reply.tool, arguments),),
        )

    def assistant_message(self, text: str, tool_calls: Sequence[dict[str, Any]]) -> Message:
        """The model's JSON reply as it wrote it."""
        return {"role": "assistant", "content": text.strip()}

    def observation_messages(self, results: Sequence[tuple[str, str, str]]) -> list[Message]:
        """One user message starting with ``Observation:`` per result, as in the text protocol."""
        return [{"role": "user", "content": f"Observation: {output}"} for _, _, output in results]

    def history_answer(self, answer: str) -> str:
        """Earlier answers in the same JSON shape, so the model keeps to it."""
        return json.dumps({"thought": "I can answer.", "final_answer": answer}, ensure_ascii=False)

    def correction_message(self, problem: str, tools: Sequence[Tool]) -> Message:
        """Name the problem and restate the format and the valid tools."""
        names = ", ".join(t.name for t in tools) or "(none)"
        return {
            "role": "user",
            "content": f"Your last reply could not be used: {problem}.\n{_FORMAT}\n\nValid tool names: {names}.",
        }


def _describe(t: Tool) -> str:
    params = json.dumps(t.parameters, ensure_ascii=False)
    return f"- {t.name}: {t.description}\n  Arguments (JSON schema): {params}"
