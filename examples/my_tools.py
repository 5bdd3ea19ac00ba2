"""Example custom tools for Sparrow, loaded without editing Sparrow.

Try it:  SPARROW_TOOLS=examples/my_tools.py python -m agent_core tools
(or put this directory on PYTHONPATH and use SPARROW_TOOLS=my_tools).
"""

from __future__ import annotations

import re

from agent_core.tools import ToolError, ToolOutput, tool

LENGTH_M = {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0, "in": 0.0254, "ft": 0.3048, "yd": 0.9144, "mi": 1609.344}
MASS_KG = {"mg": 1e-6, "g": 0.001, "kg": 1.0, "t": 1000.0, "oz": 0.028349523125, "lb": 0.45359237}
TEMPERATURES = ("C", "F", "K")
ALIASES = {"celsius": "C", "fahrenheit": "F", "kelvin": "K", "°c": "C", "°f": "F", "miles": "mi", "feet": "ft"}


@tool
def convert_units(value: float, from_unit: str, to_unit: str) -> ToolOutput:
    """Convert a quantity between units of length, mass or temperature.

    Args:
        value: The number to convert.
        from_unit: Unit of the value: mm, cm, m, km, in, ft, yd, mi, mg, g, kg, t, oz, lb, C, F or K.
        to_unit: Unit to convert to, of the same kind as from_unit.
    """
    source, target = _unit(from_unit), _unit(to_unit)
    if source in TEMPERATURES and target in TEMPERATURES:
        result = _from_kelvin(_to_kelvin(value, source), target)
    else:
        table = next((t for t in (LENGTH_M, MASS_KG) if source in t and target in t), None)
        if table is None:
            raise ToolError(f"convert_units: cannot convert {from_unit} to {to_unit} (not the same kind of quantity)")
        result = value * table[source] / table[target]
    text = f"{value:g} {source} = {result:.6g} {target}"
    return ToolOutput(text, {"value": result, "unit": target})


@tool
def word_count(text: str) -> ToolOutput:
    """Count the words, sentences and characters of a text, and estimate its reading time.

    Args:
        text: The text to measure.
    """
    words = re.findall(r"\b[\w'-]+\b", text)
    sentences = [s for s in re.split(r"[.!?。！？]+", text) if s.strip()]
    minutes = len(words) / 230
    counts = {"words": len(words), "sentences": len(sentences), "characters": len(text)}
    summary = ", ".join(f"{n} {k}" for k, n in counts.items())
    return ToolOutput(f"{summary}; about {max(1, round(minutes))} min to read", counts)


def _unit(name: str) -> str:
    key = name.strip()
    key = ALIASES.get(key.lower(), key)
    if key.upper() in TEMPERATURES:
        return key.upper()
    if key.lower() in LENGTH_M or key.lower() in MASS_KG:
        return key.lower()
    raise ToolError(f"convert_units: unknown unit {name!r}")


def _to_kelvin(value: float, unit: str) -> float:
    return {"C": value + 273.15, "F": (value - 32) * 5 / 9 + 273.15, "K": value}[unit]


def _from_kelvin(value: float, unit: str) -> float:
    return {"C": value - 273.15, "F": (value - 273.15) * 9 / 5 + 32, "K": value}[unit]
