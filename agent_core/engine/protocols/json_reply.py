"""Schema-constrained ReAct (protocol ``json``): every reply is one JSON object, whose schema the server enforces.

For small local models that drift from the text format. A reply is either ``{"action": {"tool": NAME,
"arguments": {...}}}`` or ``{"final_answer": ...}``: the decision alone, no ``thought`` (measured with
SmolLM2-135M: a thought written first worked out a wrong result, "144 / 12 = 12.5", that the call and the answer
then copied). The request carries ``response_format`` with the JSON Schema of :func:`reply_schema`: an ``anyOf``
with one branch per tool (its name as an ``enum`` of one, its arguments as the tool's parameter schema, steered:
see ``_steered``) and one for the answer; every object is closed (``additionalProperties: false``), so a reply
with both an action and an answer, an unknown tool or arguments that break the tool's schema matches no branch.
OpenAI, vLLM, llama.cpp server and Ollama enforce it; the model layer falls back to ``json_object`` where only
that is supported. The reader (:func:`read_reply`) never raises and still reads a ``thought`` a reply has:
anything unusable becomes a format problem in one sentence. Same loop, events and trace as the other protocols.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_core.engine.protocols.protocol import Decision, Narrowing, PromptedProtocol, one_call
from agent_core.guards import json_limits
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

    def streamed_answer(self, text: str) -> str:
        """The ``final_answer`` a streaming reply has written so far ("" before it starts)."""
        return partial_answer(text)


def _others(tools: Sequence[Tool], narrowing: Narrowing) -> list[Tool]:
    """The offered tools a failed repeated call gives way to (none when the repeated call worked)."""
    return [t for t in tools if t.name not in narrowing.repeated_tools] if narrowing.failed else []


SCHEMA_NAME = "sparrow_step"
"""``json_schema.name`` of the response format."""
_REF_PREFIXES = ("#/$defs/", "#/definitions/")
_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n?(.*?)\n?```\s*$", re.DOTALL)
_DECODER = json.JSONDecoder()


def reply_schema(tools: Sequence[Tool]) -> dict[str, Any]:
    """The JSON Schema every reply must match, for these tools."""
    definitions: dict[str, Any] = {}
    branches = [_action_branch(i, t, definitions) for i, t in enumerate(tools)] + [_answer_branch()]
    schema: dict[str, Any] = {"type": "object", "anyOf": branches}
    if definitions:
        schema["$defs"] = definitions
    return schema


ANSWER_CHARS = 600
"""Most characters of the answer in :func:`answer_schema` (the request after repeated calls wants it short: a
small model's answer that rambles on is cut by ``max_tokens`` into an unusable reply)."""


def answer_schema() -> dict[str, Any]:
    """The schema of a reply that can only be the final answer, written first and alone (no thought to drift in)."""
    return {"type": "object", "anyOf": [_closed({"final_answer": {**_answer(), "maxLength": ANSWER_CHARS}})]}


def response_format(tools: Sequence[Tool], schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``response_format`` request field that makes a server enforce ``schema`` (default :func:`reply_schema`)."""
    schema = reply_schema(tools) if schema is None else schema
    return {"type": "json_schema", "json_schema": {"name": SCHEMA_NAME, "schema": schema, "strict": True}}


def _answer() -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "description": "The answer for the user."}


def _action_branch(index: int, t: Tool, definitions: dict[str, Any]) -> dict[str, Any]:
    arguments = _hoisted(t, definitions, f"#/anyOf/{index}/properties/action/properties/arguments")
    action = {
        "type": "object",
        "properties": {"tool": {"type": "string", "enum": [t.name]}, "arguments": arguments},
        "required": ["tool", "arguments"],
        "additionalProperties": False,
    }
    return _closed({"action": action})


def _answer_branch() -> dict[str, Any]:
    return _closed({"final_answer": _answer()})


def _closed(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _hoisted(t: Tool, definitions: dict[str, Any], at: str) -> dict[str, Any]:
    """The tool's parameter schema placed at ``at``: its definitions moved to the root's ``$defs`` (names
    prefixed by the tool's), references into itself re-pointed, ``$schema`` / ``$id`` dropped (MCP servers
    send draft-07 schemas that carry them)."""
    schema = copy.deepcopy(t.parameters)
    for key in ("$schema", "$id"):
        schema.pop(key, None)
    local = {**schema.pop("definitions", {}), **schema.pop("$defs", {})}
    for name, definition in local.items():
        definitions[f"{t.name}__{name}"] = _steered(_moved(definition, t.name, at))
    return _steered(_moved(schema, t.name, at))


ARGUMENT_CHARS = 200
"""Most characters of a string argument whose tool sets no bound (measured: SmolLM2-135M writing its reasoning
into ``expression`` until ``max_tokens`` cut the reply, an unusable reply; a bounded string ends and the call runs)."""


def _steered(schema: Any) -> Any:
    """The arguments' schema as a small model is steered by it: a property that accepts ``null`` is required (it
    is written, ``null`` or a value, instead of skipped: SmolLM2-135M left out ``days`` of a date addition), and a
    string with no bound of its own gets ``maxLength`` :data:`ARGUMENT_CHARS`. What the tool accepts is unchanged.

    Only subschemas are walked (a parameter named ``type`` or ``properties`` is a name, not a keyword)."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    for key in _SUBSCHEMA:
        if isinstance(out.get(key), dict):
            out[key] = _steered(out[key])
    for key in _SUBSCHEMA_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [_steered(item) for item in out[key]]
    for key in _SUBSCHEMA_MAPS:
        if isinstance(out.get(key), dict):
            out[key] = {name: _steered(value) for name, value in out[key].items()}
    if out.get("type") == "string" and not {"maxLength", "enum", "const", "format", "pattern"} & out.keys():
        out["maxLength"] = ARGUMENT_CHARS
    if isinstance(out.get("properties"), dict):
        required = list(out.get("required", []))
        nullable = [name for name, value in out["properties"].items() if _accepts_null(value)]
        out["required"] = required + [name for name in nullable if name not in required]
    return out


_SUBSCHEMA = ("items", "additionalProperties", "not", "if", "then", "else", "contains")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions")


def _accepts_null(node: Any) -> bool:
    if not isinstance(node, dict):
        return False
    kind = node.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    branches = [*node.get("anyOf", []), *node.get("oneOf", [])]
    return any(_accepts_null(branch) for branch in branches if isinstance(branch, dict))


def _moved(node: Any, tool_name: str, at: str) -> Any:
    if isinstance(node, dict):
        moved = {k: _moved(v, tool_name, at) for k, v in node.items()}
        if isinstance(node.get("$ref"), str):
            moved["$ref"] = _moved_ref(node["$ref"], tool_name, at)
        return moved
    if isinstance(node, list):
        return [_moved(item, tool_name, at) for item in node]
    return node


def _moved_ref(ref: str, tool_name: str, at: str) -> str:
    """A reference of the tool's own schema, valid again once the schema sits at ``at`` inside the reply's."""
    for prefix in _REF_PREFIXES:
        if ref.startswith(prefix):
            name, _, rest = ref[len(prefix) :].partition("/")
            return f"#/$defs/{tool_name}__{name}" + (f"/{rest}" if rest else "")
    if ref == "#" or ref.startswith("#/"):
        return at + ref[1:]
    return ref  # a reference to another document is left as it is


@dataclass(frozen=True)
class JsonReply:
    """What a reply says (or why it cannot be used)."""

    thought: str = ""
    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    final_answer: str | None = None
    problem: str | None = None


def read_reply(text: str) -> JsonReply:
    """Read one reply; tolerates a markdown fence or text around the object, never raises."""
    value = _decode(text)
    if not isinstance(value, dict):
        return JsonReply(problem="the reply is not a JSON object" if text.strip() else "the reply is empty")
    thought = value.get("thought", "")  # absent from the answer-only schema's replies
    if not isinstance(thought, str):
        return JsonReply(problem='"thought" must be a string')
    has_action, has_answer = "action" in value, "final_answer" in value
    if has_action and has_answer:
        return JsonReply(thought, problem='the reply has both an "action" and a "final_answer"; give exactly one')
    if has_answer:
        answer = value["final_answer"]
        if not isinstance(answer, str) or not answer.strip():
            return JsonReply(thought, problem='"final_answer" must be a non-empty string')
        return JsonReply(thought, final_answer=answer.strip())
    if has_action:
        return _action(thought, value["action"])
    return JsonReply(thought, problem='the reply has neither an "action" nor a "final_answer"')


def _action(thought: str, action: Any) -> JsonReply:
    if not isinstance(action, dict) or not isinstance(action.get("tool"), str) or not action["tool"].strip():
        return JsonReply(thought, problem='"action" must be an object with a "tool" name and "arguments"')
    arguments = action.get("arguments", {})
    if not isinstance(arguments, dict):
        return JsonReply(thought, problem=f'"arguments" for {action["tool"]} must be a JSON object')
    return JsonReply(thought, tool=action["tool"].strip(), arguments=arguments)


def _decode(text: str) -> Any:
    stripped = text.strip() if isinstance(text, str) else ""
    fence = _FENCE.match(stripped)
    if fence:
        stripped = fence.group(1).strip()
    try:
        return json_limits.loads(stripped)
    except (json.JSONDecodeError, RecursionError):
        pass
    start = stripped.find("{")
    if start < 0:
        return None
    try:
        return json_limits.raw_decode(stripped[start:])[0]
    except (json.JSONDecodeError, RecursionError):
        return None


def partial_answer(streamed: str) -> str:
    """The part of a ``final_answer`` a streaming reply has written so far ("" before it starts)."""
    match = re.search(r'"final_answer"\s*:\s*"', streamed)
    if not match:
        return ""
    rest, out, escaped = streamed[match.end() :], [], False
    for ch in rest:
        if escaped:
            out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/"}.get(ch, ch))
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == '"':
            break
        else:
            out.append(ch)
    return "".join(out)
