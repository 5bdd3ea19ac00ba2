"""The ReAct text protocol: Thought / Action / Action Input / Observation / Final Answer."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent_core.models.base import Completion, Message
from agent_core.protocols.base import Decision
from agent_core.protocols.prompted import PromptedProtocol, one_call
from agent_core.protocols.react_parser import observation_index, parse_react
from agent_core.tools.base import Tool, ToolSet

STOP_SEQUENCES = ["\nObservation:", "Observation:", "Observation："]

_FORMAT = """You MUST reply in exactly one of these two formats, and nothing else.

To use a tool:
Thought: <your reasoning about what to do next>
Action: <one tool name from the list above>
Action Input: <a JSON object with the tool's arguments>

When you can answer:
Thought: <your reasoning>
Final Answer: <the answer for the user>"""

_RULES = """Rules:
1. One step per reply: one Thought with one Action, or one Thought with the Final Answer.
2. Action must be one of the tool names listed above; Action Input must be valid JSON.
3. Never write "Observation:" yourself: the system runs the tool and gives you the Observation.
4. For calculations, dates, current time or facts you are unsure of, use a tool instead of guessing.
5. If a tool keeps failing or returns the same result, answer with what you have and say what is missing.
6. Answer in the language of the question."""

_EXAMPLE = """Example:
Question: What is 17% of 2,340?
Thought: I need to compute 0.17 * 2340, so I will use the calculator.
Action: calculator
Action Input: {"expression": "0.17 * 2340"}
Observation: 397.8
Thought: I have the result.
Final Answer: 17% of 2,340 is 397.8."""


class ReactTextProtocol(PromptedProtocol):
    """Works with any chat model, including small local ones: tools are described in the prompt."""

    name = "react"
    reply_format = _FORMAT
    rules = _RULES
    example = _EXAMPLE
    answer_now = (
        "Do not write another Action. Reply now with a Thought and the Final Answer:\n"
        "Thought: <your reasoning>\nFinal Answer: <the answer for the user>"
    )
    narrowing = "a correction message asks for Final Answer:"

    def describe(self, tool: Tool) -> str:
        """Name, description, the parameters' schemas and which are required."""
        params = json.dumps(tool.parameters.get("properties", {}), ensure_ascii=False)
        required = ", ".join(tool.parameters.get("required", [])) or "none"
        return f"- {tool.name}: {tool.description}\n  Parameters (JSON schema): {params}\n  Required: {required}"

    def request_options(self, tools: Sequence[Tool]) -> dict[str, Any]:
        """Stop before a model can invent its own Observation."""
        return {"stop": STOP_SEQUENCES}

    def cut_index(self, text: str) -> int | None:
        """Index of a model-written Observation label."""
        return observation_index(text)

    def interpret(self, completion: Completion, tools: ToolSet) -> Decision:
        """Parse the text; the first action wins; the text is kept only up to any fake Observation."""
        parsed = parse_react(completion.text, {t.name: t for t in tools})
        assistant = self.assistant_message(parsed.text, ())
        if parsed.action is not None:
            return one_call(parsed.thought, parsed.action, parsed.arguments, assistant, parsed.input_problem)
        return Decision(
            thought=parsed.thought,
            final_answer=parsed.final_answer,
            format_error=parsed.format_error,
            assistant=assistant,
        )

    def assistant_message(self, text: str, tool_calls: Sequence[dict[str, Any]]) -> Message:
        """The model's own text, cut before any Observation it wrote."""
        cut = observation_index(text)
        return {"role": "assistant", "content": (text if cut is None else text[:cut]).rstrip()}

    def history_answer(self, answer: str) -> str:
        """Earlier answers keep the Final Answer format, so the model keeps to it too."""
        return f"Final Answer: {answer}"
