"""The ReAct text protocol: Thought / Action / Action Input / Observation / Final Answer, and its parser.

The parser never raises: anything it cannot read becomes a ``format_error``. It survives what real models
write: preambles, ``**bold**`` or ``###`` labels, full-width colons, any case and spacing, markdown fences around
JSON, Python-style dicts, near-JSON in an Action Input (typographic quotes, full-width punctuation, trailing commas,
unquoted keys: repaired one step at a time, see ``loads_near_json``), bare strings as input, several actions in one
reply (the first wins) and a hallucinated ``Observation:`` (cut there). ``Final Answer:`` is recognised by the
parser's label alone; the renderer asks the protocol for it (``ReactTextProtocol.streamed_answer``).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_core.engine.protocols.protocol import Decision, PromptedProtocol, one_call
from agent_core.guards import json_limits
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

    def streamed_answer(self, text: str) -> str:
        """What follows the parser's ``Final Answer:`` label in a reply so far ("" before it, or after an Action)."""
        return streamed_final_answer(text)


_LABELS = {
    "action_input": r"action[ _\-]*input|行动输入|动作输入",
    "final_answer": r"final[ _\-]*answer|最终答案",
    "observation": r"observation|观察",
    "thought": r"thoughts?|思考",
    "action": r"action|行动|动作",
}
_LABEL_RE = re.compile(
    r"^[ \t>#*_\-]*(?:"
    + "|".join(f"(?P<{name}>{pattern})" for name, pattern in _LABELS.items())
    + r")[ \t*_]*[:：][ \t*_]*",
    re.IGNORECASE | re.MULTILINE,
)
_OBSERVATION_RE = re.compile(r"^[ \t>#*_\-]*(?:observation|观察)[ \t*_]*[:：]", re.IGNORECASE | re.MULTILINE)
_FENCE_RE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)(?:```|$)", re.DOTALL)
_DECODER = json.JSONDecoder()
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


@dataclass(frozen=True)
class ParsedReply:
    """What a ReAct reply says: a Thought and either one Action or a Final Answer (or a format error)."""

    thought: str = ""
    action: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    input_problem: str | None = None
    """Set when the Action Input could not be turned into arguments."""
    final_answer: str | None = None
    format_error: str | None = None
    text: str = ""
    """The reply cut before any model-written ``Observation:``; this is what goes back into the context."""
    cut_observation: bool = False


def observation_index(text: str) -> int | None:
    """Index of the first model-written Observation: a label at a line start, or the stop sequence anywhere."""
    match = _OBSERVATION_RE.search(text)
    found = [match.start()] if match else []
    found += [i for i in (text.find("Observation:"), text.find("Observation：")) if i != -1]
    return min(found) if found else None


def streamed_final_answer(text: str) -> str:
    """The final answer a (streaming) ReAct reply has written so far, as the parser reads it; "" when there is none.

    The same label as ``parse_react``'s (``Final Answer:``, ``最终答案：``, any case, bold or full-width colon, at a
    line start), cut at a model-written Observation; an Action written before it makes the reply an action.
    """
    cut = observation_index(text)
    sections = _sections(text if cut is None else text[:cut])
    final_at, action_at = _index(sections, "final_answer"), _index(sections, "action")
    if final_at is None or (action_at is not None and action_at < final_at):
        return ""
    return sections[final_at][2].strip()


def parse_react(text: str, tools: dict[str, Tool] | None = None) -> ParsedReply:
    """Parse one reply; ``tools`` lets a bare Action Input map onto a tool's single parameter."""
    try:
        return _parse(text if isinstance(text, str) else str(text), tools or {})
    except Exception as exc:  # the parser must never take the run down
        return ParsedReply(format_error=f"the reply could not be parsed ({type(exc).__name__})", text=str(text))


def _parse(raw: str, tools: dict[str, Tool]) -> ParsedReply:
    cut = observation_index(raw)
    text = (raw if cut is None else raw[:cut]).rstrip()
    sections = _sections(text)
    preamble = text[: sections[0][1]].strip() if sections else text.strip()
    thought = _first(sections, "thought") or ""
    if not thought and preamble:
        thought = preamble
    action_at = _index(sections, "action")
    final_at = _index(sections, "final_answer")
    common = {"thought": thought, "text": text, "cut_observation": cut is not None}
    if action_at is not None and (final_at is None or action_at < final_at):
        return _action(sections, action_at, tools, common)
    if final_at is not None:
        answer = sections[final_at][2].strip()
        if answer:
            return ParsedReply(final_answer=answer, **common)
        return ParsedReply(format_error="'Final Answer:' is empty", **common)
    if not text.strip():
        return ParsedReply(format_error="the reply is empty", **common)
    return ParsedReply(format_error="the reply has neither an 'Action:' nor a 'Final Answer:' line", **common)


def _sections(text: str) -> list[tuple[str, int, str]]:
    """(label, start, content) for every label, content running to the next label."""
    matches = list(_LABEL_RE.finditer(text))
    found = []
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        found.append((match.lastgroup or "", match.start(), text[match.end() : end]))
    return found


def _first(sections: list[tuple[str, int, str]], label: str) -> str | None:
    index = _index(sections, label)
    return sections[index][2].strip() if index is not None else None


def _index(sections: list[tuple[str, int, str]], label: str, start: int = 0) -> int | None:
    for i in range(start, len(sections)):
        if sections[i][0] == label:
            return i
    return None


def _action(
    sections: list[tuple[str, int, str]], at: int, tools: dict[str, Tool], common: dict[str, Any]
) -> ParsedReply:
    name, inline = _action_name(sections[at][2])
    if not name:
        return ParsedReply(format_error="'Action:' names no tool", **common)
    next_action = _index(sections, "action", at + 1)
    input_at = _index(sections, "action_input", at + 1)
    if input_at is not None and (next_action is None or input_at < next_action):
        raw_input: str | None = sections[input_at][2]
    else:
        raw_input = inline
    arguments, problem = parse_action_input(raw_input, tools.get(name))
    return ParsedReply(action=name, arguments=arguments, input_problem=problem, **common)


def _action_name(content: str) -> tuple[str, str | None]:
    """The tool name from an Action line, and an inline input as in ``calculator(2+2)``."""
    line = content.strip().splitlines()[0].strip() if content.strip() else ""
    line = line.strip("`'\"*[] ")
    match = _NAME_RE.match(line)
    if not match:
        return "", None
    name = match.group(0).rstrip(".-")
    rest = line[match.end() :].strip()
    inline = rest[1:-1] if rest.startswith("(") and rest.endswith(")") else None
    return name, inline


def parse_action_input(raw: str | None, tool: Tool | None) -> tuple[dict[str, Any], str | None]:
    """Arguments from an Action Input: JSON, fenced JSON, a Python dict, or a bare value for one parameter."""
    if raw is None:
        return {}, None if tool is None or not _required(tool) else "'Action Input:' is missing"
    text = _unfence(raw)
    if not text:
        return {}, None
    if text[0] in OPENERS:
        value, error = _decode_structured(text)
        if error is not None:
            return {}, f"Action Input is not valid JSON ({error})"
    else:
        value = _decode_scalar(text)
    if isinstance(value, dict):
        return _fit_keys(value, tool), None
    single = tool.single_param if tool is not None else None
    if single is not None:
        return {single: value}, None
    if tool is None:
        return {"input": value}, None
    keys = ", ".join(tool.param_names)
    return {}, f"Action Input must be a JSON object with the keys: {keys}"


def _unfence(raw: str) -> str:
    text = raw.strip()
    fence = _FENCE_RE.search(text)
    if fence and text.startswith("```"):
        text = fence.group(1).strip()
    elif text.startswith("`") and text.endswith("`") and len(text) > 1:
        text = text.strip("`").strip()
    return text


def _decode_structured(text: str) -> tuple[Any, str | None]:
    try:
        value, _ = json_limits.raw_decode(text)
        return value, None
    except json.JSONDecodeError as exc:
        error = f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    candidate = _balanced_prefix(text)
    if candidate is not None:
        try:
            value = ast.literal_eval(candidate)  # Python-style dicts with single quotes, True/None
            if isinstance(value, (dict, list)) and not json_limits.depth_over(value, json_limits.MAX_DEPTH):
                return value, None
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            pass
    try:
        return loads_near_json(text), None  # curly quotes, full-width punctuation, trailing commas...
    except ValueError:
        return None, error


def _balanced_prefix(text: str) -> str | None:
    """The shortest prefix with balanced brackets (ignoring quoted text), or None."""
    depth, quote, escaped = 0, "", False
    for i, ch in enumerate(text[:20_000]):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return text[: i + 1]
    return None


def _decode_scalar(text: str) -> str:
    """A bare input: surrounding quotes (straight or typographic) are removed, JSON escapes honoured."""
    if len(text) >= 2 and text[0] in "“‘＂「«" and text[-1] in "”’＂」»":
        return text[1:-1]
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        if text[0] == '"':
            try:
                decoded = json.loads(text)
                return decoded if isinstance(decoded, str) else text[1:-1]
            except json.JSONDecodeError:
                pass
        return text[1:-1]
    return text


def _fit_keys(value: dict[str, Any], tool: Tool | None) -> dict[str, Any]:
    """Map a one-key object with an unknown key (``{"input": ...}``) onto a single-parameter tool."""
    if tool is None or len(value) != 1:
        return value
    (key, inner), single = next(iter(value.items())), tool.single_param
    if single is not None and key not in tool.param_names:
        return {single: inner}
    return value


def _required(tool: Tool) -> list[str]:
    return [n for n, f in tool.args_model.model_fields.items() if f.is_required()]


_DOUBLE = str.maketrans({"“": '"', "”": '"', "„": '"', "‟": '"', "«": '"', "»": '"', "「": '"', "」": '"', "＂": '"'})
_SINGLE = str.maketrans({"‘": "'", "’": "'", "‚": "'", "‛": "'", "＇": "'"})
_FULL_WIDTH = str.maketrans({"｛": "{", "｝": "}", "［": "[", "］": "]", "：": ":", "，": ","})
_SINGLE_QUOTED = re.compile(r"'((?:[^'\\\n\"]|\\.)*)'")
"""A single-quoted string without double quotes inside: rewritten as a JSON string (``{'a': true}``)."""
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_UNQUOTED_KEY = re.compile(r"([{,]\s*)([A-Za-z_][A-Za-z0-9_\-]*)\s*:")
OPENERS = "{[｛［"
"""First characters of a structured Action Input (ASCII or full-width)."""


def loads_near_json(text: str) -> Any:
    """The value ``text`` means, after as few repairs as needed; ValueError when none helps."""
    for repaired in _repairs(text):
        value = _parse_repaired(repaired)
        if value is not None:
            return value
    raise ValueError("not JSON, even after repairing quotes, punctuation and commas")


def _repairs(text: str) -> list[str]:
    steps: list[Callable[[str], str]] = [
        lambda t: t.translate(_DOUBLE),
        lambda t: t.translate(_SINGLE),
        lambda t: _SINGLE_QUOTED.sub(lambda m: json.dumps(m.group(1), ensure_ascii=False), t),
        lambda t: t.translate(_FULL_WIDTH),
        lambda t: _TRAILING_COMMA.sub(r"\1", t),
        lambda t: _UNQUOTED_KEY.sub(r'\1"\2":', t),
    ]
    out, current = [], text
    for step in steps:
        current = step(current)
        out.append(current)
    return out


def _parse_repaired(text: str) -> Any:
    try:
        value, _ = json_limits.raw_decode(text.strip())
        return value
    except ValueError:
        pass
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None
    if isinstance(value, (dict, list)) and not json_limits.depth_over(value, json_limits.MAX_DEPTH):
        return value
    return None
