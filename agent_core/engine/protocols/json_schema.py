"""Schema-constrained ReAct (protocol ``json``): every reply is a JSON object the server is asked to enforce.

For small local models that drift from the text format. The request carries ``response_format`` with the
JSON Schema of :func:`~agent_core.engine.protocols.json_reply.reply_schema` (OpenAI, vLLM, llama.cpp server and
Ollama enforce it); the model layer falls back to ``json_object`` where only that is supported, and every
reply is read and checked here either way. Same loop, events and trace as the other protocols.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent_core.engine.protocols.json_reply import answer_schema, partial_answer, read_reply, response_format
from agent_core.engine.protocols.prompted import PromptedProtocol, one_call
from agent_core.engine.protocols.protocol import Decision, Narrowing
from agent_core.models.chat import Completion, Message
from agent_core.tools.tool import Tool, ToolSet

_FORMAT = """Reply with exactly one JSON object and nothing else, in one of these two shapes.

To use a tool:
{"action": {"tool": "<one tool name from the list>", "arguments": {<the tool's arguments>}}}

When you can answer:
{"final_answer": "<the answer for the user>"}"""

_RULES = """Rules:
1. One step per reply: one action, or the final answer; never both.
2. "tool" must be one of the tool names listed above and "arguments" must match its parameters.
3. The system runs the tool and sends you its result as an Observation; never write one yourself.
4. For calculations, dates, current time or facts you are unsure of, use a tool instead of guessing.
5. Answer in the language of the question."""

_EXAMPLE = """Example (with a unit_converter tool):
Question: How many meters are in 3 miles?
{"action": {"tool": "unit_converter", "arguments": {"value": 3, "from": "mile", "to": "meter"}}}
Observation: unit_converter returned: 4828.03
{"final_answer": "3 miles are 4828.03 meters."}"""


NEXT = "If this answers the question, give the final answer now."
"""The line after every Observation (measured with SmolLM2-135M: without it, it went on calling the tool on its own
result, "1023 + 678" after 345 + 678 returned 1023; with it, it answered)."""


class JsonSchemaProtocol(PromptedProtocol):
    """ReAct steps as JSON objects, constrained by a JSON Schema built from the offered tools."""

    name = "json"
    reply_format = _FORMAT
    rules = _RULES
    example = _EXAMPLE
    answer_now = "Reply now with the final answer."
    narrowing = "the reply schema allows only a final answer"
    narrowing_others = "the reply schema allows only a final answer or a call of {tools}"

    def describe(self, tool: Tool) -> str:
        """Name, description and the whole JSON Schema of the arguments."""
        params = json.dumps(tool.parameters, ensure_ascii=False)
        return f"- {tool.name}: {tool.description}\n  Arguments (JSON schema): {params}"

    def request_options(self, tools: Sequence[Tool]) -> dict[str, Any]:
        """The reply's JSON Schema as the request's ``response_format``."""
        return {"response_format": response_format(tools)}

    def narrowed_options(self, tools: Sequence[Tool], narrowing: Narrowing) -> dict[str, Any]:
        """A schema the server enforces: the final answer alone, or (after a failed call) it or another tool's call.

        A repeated call that worked holds the answer: only ``{"final_answer": ...}`` may come back, the answer
        first so a small model copies the result instead of reasoning its way off it. A repeated call that failed
        cannot answer: the schema keeps the tools that were not repeated (their branches as usual) beside the
        answer, and drops the repeated ones (a schema cannot exclude one set of arguments on every server).
        """
        others = _others(tools, narrowing)
        if others:
            return {"response_format": response_format(others)}
        return {"response_format": response_format((), answer_schema())}

    def describe_narrowing(self, narrowing: Narrowing) -> str:
        """Which of the two schemas :meth:`narrowed_options` sends, in words."""
        if narrowing.failed and narrowing.other_tools:
            return self.narrowing_others.format(tools=", ".join(narrowing.other_tools))
        return self.narrowing

    def answer_request(self, repeat: str, narrowing: Narrowing) -> Message:
        """The repeat named, then the answer asked for in the schema's shape (or another tool, after a failure)."""
        if narrowing.failed and narrowing.other_tools:
            ask = f"Reply now with the final answer, or call another tool: {', '.join(narrowing.other_tools)}."
            return {"role": "user", "content": f"{repeat}\n{ask}"}
        return {"role": "user", "content": f"{repeat}\n{self.answer_now}"}

    def observation_messages(self, results: Sequence[tuple[str, str, str]]) -> list[Message]:
        """``Observation: calculator returned: 391`` and :data:`NEXT`: the tool named, then the answer asked for.

        Measured with SmolLM2-135M: after a bare ``Observation: 391`` it called the calculator on 391 (and on
        392, 393...); with the tool named it gave the answer.
        """
        return [{"role": "user", "content": f"Observation: {t} returned: {out}\n{NEXT}"} for _, t, out in results]

    def interpret(self, completion: Completion, tools: ToolSet) -> Decision:
        """One action, a final answer, or a format problem; the whole reply stays in the context."""
        reply = read_reply(completion.text)
        assistant = self.assistant_message(completion.text, ())
        cut = partial_answer(completion.text).strip() if completion.finish_reason == "length" else ""
        if reply.problem is not None and cut:  # cut by max_tokens inside its answer: kept as written, as in ReAct text
            return Decision(thought=reply.thought, final_answer=cut, assistant=assistant)
        if reply.problem is not None:
            return Decision(thought=reply.thought, format_error=reply.problem, assistant=assistant)
        if reply.final_answer is not None:
            return Decision(thought=reply.thought, final_answer=reply.final_answer, assistant=assistant)
        assert reply.tool is not None
        return one_call(reply.thought, reply.tool, reply.arguments, assistant)

    def assistant_message(self, text: str, tool_calls: Sequence[dict[str, Any]]) -> Message:
        """The model's JSON reply as it wrote it."""
        return {"role": "assistant", "content": text.strip()}

    def history_answer(self, answer: str) -> str:
        """Earlier answers in the same JSON shape, so the model keeps to it."""
        return json.dumps({"final_answer": answer}, ensure_ascii=False)


def _others(tools: Sequence[Tool], narrowing: Narrowing) -> list[Tool]:
    """The offered tools a failed repeated call gives way to (none when the repeated call worked)."""
    return [t for t in tools if t.name not in narrowing.repeated_tools] if narrowing.failed else []
