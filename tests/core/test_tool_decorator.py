"""@tool: schemas from type hints and docstrings, validation, refusal of undocumented tools."""

from __future__ import annotations

import asyncio
from typing import Literal

import pytest

from agent_core.tools import Tool, ToolArgumentsError, ToolDefinitionError, ToolOutput, tool


@tool
def convert(value: float, unit: Literal["km", "mi"] = "km", precise: bool = False) -> dict:
    """Convert a distance.

    Longer explanation on a second paragraph.

    Args:
        value: The distance to convert,
            which may span two lines.
        unit: The unit of ``value``.
        precise: Keep all decimals.

    Returns:
        The converted distance.
    """
    factor = 0.621371 if unit == "km" else 1.609344
    return {"result": value * factor if precise else round(value * factor, 2)}


def test_schema_comes_from_hints_and_docstring() -> None:
    assert convert.schema == {
        "type": "function",
        "function": {
            "name": "convert",
            "description": "Convert a distance. Longer explanation on a second paragraph.",
            "parameters": {
                "additionalProperties": False,
                "properties": {
                    "value": {"description": "The distance to convert, which may span two lines.", "type": "number"},
                    "unit": {
                        "default": "km",
                        "description": "The unit of ``value``.",
                        "enum": ["km", "mi"],
                        "type": "string",
                    },
                    "precise": {"default": False, "description": "Keep all decimals.", "type": "boolean"},
                },
                "required": ["value"],
                "type": "object",
            },
        },
    }


def test_non_string_results_are_json_with_details() -> None:
    assert convert.invoke({"value": 10}) == ToolOutput('{"result": 6.21}', {"result": 6.21})


def test_validation_names_every_problem() -> None:
    with pytest.raises(ToolArgumentsError) as caught:
        convert.invoke({"value": "far", "unit": "yd", "colour": 1})
    assert str(caught.value) == (
        "invalid arguments for convert: value: Input should be a valid number, unable to parse string as a number; "
        "unit: Input should be 'km' or 'mi'; unexpected argument 'colour'"
    )
    with pytest.raises(ToolArgumentsError, match="missing required argument 'value'"):
        convert.invoke({})


def test_lax_coercion_of_numeric_strings() -> None:
    assert convert.invoke({"value": "10", "unit": "mi"}).details == {"result": 16.09}


def test_async_tools_run() -> None:
    @tool
    async def slow_echo(text: str) -> str:
        """Echo text after a short await.

        Args:
            text: What to echo.
        """
        await asyncio.sleep(0.01)
        return text.upper()

    assert slow_echo.is_async
    assert slow_echo.invoke({"text": "hi"}).content == "HI"


def test_refuses_a_tool_without_description() -> None:
    def nodoc(x: int) -> int:
        return x

    with pytest.raises(ToolDefinitionError, match="needs a description"):
        tool(nodoc)


def test_refuses_undocumented_parameters() -> None:
    def half(x: int, y: int) -> int:
        """Half documented.

        Args:
            x: documented.
        """
        return x + y

    with pytest.raises(ToolDefinitionError, match="parameter 'y' needs a description"):
        tool(half)


def test_refuses_missing_type_hints_and_varargs() -> None:
    def untyped(x) -> int:  # type: ignore[no-untyped-def]
        """Untyped.

        Args:
            x: a value.
        """
        return 1

    def varargs(*values: int) -> int:
        """Varargs.

        Args:
            values: numbers.
        """
        return 1

    with pytest.raises(ToolDefinitionError, match="needs a type hint"):
        tool(untyped)
    with pytest.raises(ToolDefinitionError, match=r"\*args/\*\*kwargs"):
        tool(varargs)


def test_options_and_direct_call() -> None:
    @tool(name="shout", needs_approval=True, timeout=2.5)
    def loud(text: str) -> str:
        """Shout.

        Args:
            text: Words.
        """
        return text.upper() + "!"

    assert isinstance(loud, Tool)
    assert (loud.name, loud.needs_approval, loud.timeout) == ("shout", True, 2.5)
    assert loud("hey") == "HEY!"
    with pytest.raises(ToolDefinitionError, match="identifier"):
        Tool(loud.fn, name="not a name")
