"""The ReAct text protocol: Thought / Action / Action Input / Observation / Final Answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_core.engine.protocols.prompted import PromptedProtocol, one_call
from agent_core.engine.protocols.protocol import Decision
from agent_core.engine.protocols.react_parser import observation_index, parse_react
from agent_core.models.chat import Completion, Message
from agent_core.tools.tool import Tool, ToolSet, signature

STOP_SEQUENCES = ["\nObservation:", "Observation:", "Observation："]

_FORMAT = """Reply in one of these two forms, nothing else.
Thought: <your reasoning>
Action: <a tool name>
Action Input: <the arguments as a JSON object>
or
Thought: <your reasoning>
Final Answer: <the answer>"""

_RULES = """Rules: one Action per reply; never write "Observation:" (the system does, with the tool's result). \
Use a tool for math, dates, the time and facts you are unsure of. If a tool keeps failing, answer with what \
you have and say what is missing. Answer in the question's language."""

_EXAMPLE = """Example:
Thought: I need 0.17 * 2340.
Action: calculator
Action Input: {"expression": "0.17 * 2340"}
Observation: 397.8
Thought: Done.
Final Answer: 397.8"""


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
        """A compact signature (optional parameters marked ``?``), the description, each parameter's own."""
        return signature(tool)

    def request_options(self, tools: Sequence[Tool]) -> dict[str, Any]:
        """Stop before a model can invent its own Observation."""
        return {"stop": STOP_SEQUENCES}

    def cut_index(self, text: str) -> int | None:
        """Index of a model-written Observation label."""
        return observation_index(text)

    def interpret(self, completion: Completion, tools: ToolSet) -> Decision:
        """Parse the text; the first action wins; the text is kept only up to any fake Observation."""
        parsed = parse_react(completion.text, {t.name: t for t in tools})
        assistant: Message = {"role": "assistant", "content": parsed.text}  # already cut before any Observation
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
