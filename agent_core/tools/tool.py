"""What a tool is: the ``@tool`` decorator, the ``Tool`` it makes, the ``ToolSet`` registry, and its prompt listing.

``@tool`` builds a JSON schema from a function's type hints and its Google-style docstring (a summary, and an
``Args:`` line per parameter) and refuses a function that lacks either; arguments are validated with pydantic
before the function runs, and a validation error lists every bad field, for the model to correct. A tool returns
a string or any JSON-able value, or a ``ToolOutput`` splitting ``content`` (for the model) from ``details`` (for
the UI). ``signature`` writes a tool as one compact line for a prompt (``- name(arg: type, opt?: type = default):
description``): a JSON Schema in full costs many tokens per tool and per step, and the same facts fit there.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]{0,63}$")


class ToolDefinitionError(TypeError):
    """A function cannot become a tool (missing descriptions or type hints, bad name...)."""


class ToolError(Exception):
    """Raised by a tool for an expected failure; its message becomes the observation as is."""


class ToolArgumentsError(ValueError):
    """Arguments did not match the tool's schema; the message lists every problem."""


@dataclass(frozen=True)
class ToolOutput:
    """What a tool returns: ``content`` for the model, ``details`` for the UI only."""

    content: str
    details: Any = None


class Tool:
    """A callable the agent can use, with its schema, validation and run settings."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        needs_approval: bool = False,
        timeout: float | None = None,
        inline: bool = False,
        repeatable: bool = False,
    ) -> None:
        self.fn = fn
        self.name = name or fn.__name__
        if not _NAME.match(self.name):
            raise ToolDefinitionError(f"tool name {self.name!r} must be a Python-style identifier")
        summary, arg_docs = parse_docstring(inspect.getdoc(fn) or "")
        self.description = description or summary
        if not self.description:
            raise ToolDefinitionError(f"tool {self.name!r} needs a description (a docstring summary line)")
        self.args_model = _args_model(fn, self.name, arg_docs)
        self.is_async = inspect.iscoroutinefunction(fn)
        self.needs_approval = needs_approval
        self.timeout = timeout
        if inline and not _is_builtin(fn):
            raise ToolDefinitionError(
                f"tool {self.name!r}: inline=True is reserved for Sparrow's built-in tools whose work is bounded;"
                " other tools run in a worker thread under their timeout"
            )
        self.inline = inline and not self.is_async
        """Run on the loop's own thread: only built-in pure functions that price every operation first.

        Other tools run in a worker thread so that their timeout can abandon them; the runner still
        applies the timeout and the run's time limit to inline results.
        """
        self.parameters = _clean_schema(self.args_model.model_json_schema())
        self._names, self._single = _param_names(self.args_model)
        self.repeatable = repeatable
        """True when the same call may give a new result (the clock, a web search): a repeat of it is run again."""

    def __repr__(self) -> str:
        return f"Tool({self.name!r})"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the underlying function directly (handy in tests and notebooks)."""
        return self.fn(*args, **kwargs)

    @property
    def schema(self) -> dict[str, Any]:
        """OpenAI function-tool schema."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    @property
    def param_names(self) -> list[str]:
        """Parameter names in signature order."""
        return list(self._names)

    @property
    def single_param(self) -> str | None:
        """The parameter a bare (non-JSON) input maps onto: the only one, or the only required one."""
        return self._single

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Validated keyword arguments, or ToolArgumentsError naming every bad field."""
        try:
            parsed = self.args_model.model_validate(arguments)
        except ValidationError as exc:
            problems = "; ".join(_describe(e) for e in exc.errors())
            raise ToolArgumentsError(f"invalid arguments for {self.name}: {problems}") from None
        return {name: getattr(parsed, name) for name in self._names}

    def invoke(self, arguments: dict[str, Any]) -> ToolOutput:
        """Validate, call (sync or async) and normalise the result to a ToolOutput."""
        return self.call_validated(self.validate(arguments))

    def call_validated(self, kwargs: dict[str, Any]) -> ToolOutput:
        """Call with already validated arguments and normalise the result to a ToolOutput."""
        result = asyncio.run(self.fn(**kwargs)) if self.is_async else self.fn(**kwargs)
        return to_output(result)


def _param_names(args_model: type[BaseModel]) -> tuple[tuple[str, ...], str | None]:
    """The parameters in order and the single one a bare input maps onto: read at every step, so worked out once."""
    fields = args_model.model_fields
    names = tuple(fields)
    return names, bare_input_param(names, [n for n, f in fields.items() if f.is_required()])


def bare_input_param(names: Sequence[str], required: Sequence[str]) -> str | None:
    """The parameter a bare (non-JSON) input maps onto: the only one, or the only required one."""
    return names[0] if len(names) == 1 else (required[0] if len(required) == 1 else None)


def tool(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    needs_approval: bool = False,
    timeout: float | None = None,
    inline: bool = False,
    repeatable: bool = False,
) -> Any:
    """Turn a typed, documented function into a Tool: ``@tool`` or ``@tool(name=..., timeout=...)``."""

    def wrap(f: Callable[..., Any]) -> Tool:
        return Tool(f, name=name, needs_approval=needs_approval, timeout=timeout, inline=inline, repeatable=repeatable)

    return wrap(fn) if fn is not None else wrap


def to_output(result: Any) -> ToolOutput:
    """Strings pass through; anything else is serialised as JSON (and kept as details)."""
    if isinstance(result, ToolOutput):
        return result
    if isinstance(result, str):
        return ToolOutput(result)
    if isinstance(result, BaseModel):
        return ToolOutput(result.model_dump_json(), result.model_dump(mode="json"))
    try:
        return ToolOutput(json.dumps(result, ensure_ascii=False, default=str), result)
    except (TypeError, ValueError):
        return ToolOutput(str(result))


class ToolSet:
    """An ordered registry of tools by name."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for t in tools:
            self.add(t)

    def add(self, t: Tool) -> None:
        """Register a tool; names must be unique."""
        if not isinstance(t, Tool):
            raise ToolDefinitionError(f"{t!r} is not a Tool; decorate it with @tool")
        if t.name in self._tools:
            raise ToolDefinitionError(f"two tools are named {t.name!r}")
        self._tools[t.name] = t

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, or None."""
        return self._tools.get(name)

    @property
    def names(self) -> list[str]:
        """Tool names in registration order."""
        return list(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def schemas(self, names: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """OpenAI schemas of all tools, or of the named ones."""
        chosen = self._tools.values() if names is None else [self._tools[n] for n in names]
        return [t.schema for t in chosen]


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (summary, {arg: description})."""
    summary: list[str] = []
    args: dict[str, str] = {}
    section, current, arg_indent = "summary", "", -1
    for raw in doc.splitlines():
        line, indent = raw.strip(), len(raw) - len(raw.lstrip())
        header = line[:-1].strip().lower() if line.endswith(":") else ""
        if header in _ARG_HEADERS or header in _OTHER_HEADERS:
            section, current, arg_indent = ("args" if header in _ARG_HEADERS else "other"), "", -1
        elif section == "summary":
            summary.append(line)
        elif section == "args" and line:
            match = _ARG_LINE.match(line)
            if match and (arg_indent < 0 or indent <= arg_indent):
                current, arg_indent = match.group(1), indent
                args[current] = match.group(2).strip()
            elif current:
                args[current] = f"{args[current]} {line}".strip()
    return " ".join(" ".join(summary).split()), args


_ARG_HEADERS = {"args", "arguments", "parameters", "params"}
_OTHER_HEADERS = {"returns", "return", "raises", "yields", "examples", "example", "note", "notes"}
_ARG_LINE = re.compile(r"^\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def _is_builtin(fn: Callable[..., Any]) -> bool:
    """Only Sparrow's own tool modules may run inline: their cost is bounded before they compute."""
    return getattr(fn, "__module__", "").startswith("agent_core.tools.")


def _args_model(fn: Callable[..., Any], tool_name: str, docs: dict[str, str]) -> type[BaseModel]:
    try:
        hints = get_type_hints(fn, include_extras=True)
    except Exception as exc:
        raise ToolDefinitionError(f"tool {tool_name!r}: cannot read type hints ({exc})") from None
    fields: dict[str, Any] = {}
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(f"tool {tool_name!r}: *args/**kwargs cannot be described to a model")
        if param.name not in hints:
            raise ToolDefinitionError(f"tool {tool_name!r}: parameter {param.name!r} needs a type hint")
        if not docs.get(param.name):
            raise ToolDefinitionError(
                f"tool {tool_name!r}: parameter {param.name!r} needs a description in the docstring's Args: section"
            )
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (hints[param.name], Field(default, description=docs[param.name]))
    config = ConfigDict(extra="forbid")
    return create_model(f"{tool_name}_arguments", __config__=config, **fields)


def _clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    schema = dict(schema)
    schema.pop("title", None)
    schema["properties"] = {
        name: {k: v for k, v in prop.items() if k != "title"} for name, prop in schema.get("properties", {}).items()
    }
    schema.setdefault("required", [])
    return schema


def _describe(error: Mapping[str, Any]) -> str:
    loc = ".".join(str(p) for p in error.get("loc", ())) or "arguments"
    if error.get("type") == "extra_forbidden":
        return f"unexpected argument {loc!r}"
    if error.get("type") == "missing":
        return f"missing required argument {loc!r}"
    return f"{loc}: {error.get('msg', 'invalid value')}"


_PLAIN = {"string", "integer", "number", "boolean"}


def signature(tool: Tool) -> str:
    """The tool's listing: its signature and description, then one line per described parameter."""
    properties: dict[str, Any] = tool.parameters.get("properties", {})
    required = set(tool.parameters.get("required", []))
    params = ", ".join(_param(name, schema, name in required) for name, schema in properties.items())
    lines = [f"- {tool.name}({params}): {tool.description}"]
    lines += [f"  {name}: {s['description']}" for name, s in properties.items() if s.get("description")]
    return "\n".join(lines)


def _param(name: str, schema: dict[str, Any], required: bool) -> str:
    text = f"{name}{'' if required else '?'}: {type_of(schema)}"
    if "default" in schema and schema["default"] is not None:
        text += f" = {json.dumps(schema['default'], ensure_ascii=False)}"
    return text


def type_of(schema: dict[str, Any]) -> str:
    """``string``, ``"add"|"subtract"``, ``integer[]``, ``string|null``; else the schema as compact JSON."""
    if "enum" in schema:
        return "|".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    if "anyOf" in schema and all(set(s) <= {"type", "enum", "items"} for s in schema["anyOf"]):
        return "|".join(type_of(s) for s in schema["anyOf"])
    kind = schema.get("type")
    if kind in _PLAIN or kind == "null":
        return str(kind)
    if kind == "array" and set(schema.get("items", {})) <= {"type", "enum"} and schema.get("items"):
        return f"{type_of(schema['items'])}[]"
    rest = {k: v for k, v in schema.items() if k not in ("description", "title", "default")}
    return json.dumps(rest, ensure_ascii=False, separators=(",", ":"))
