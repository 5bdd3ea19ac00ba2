"""The deployment page lists every environment variable of the settings object, with its default, and no other."""

from __future__ import annotations

import re
from pathlib import Path

from agent_core.env_settings import EnvSettings

PAGE = Path(__file__).resolve().parents[2] / "docs" / "deployment.md"


def _rows() -> dict[str, tuple[str, str]]:
    """Variable -> (kind, default) from the page's environment table."""
    section = PAGE.read_text(encoding="utf-8").split("## Environment variables", 1)[1]
    rows = re.findall(r"^\| `([A-Z0-9_]+)` \| ([^|]+) \| ([^|]+) \|", section, re.M)
    return {name: (kind.strip(), default.strip()) for name, kind, default in rows}


def _default(value: object) -> str:
    if value is None or value == ():
        return "—"
    if isinstance(value, bool):
        return "`1`" if value else "`0`"
    return f"`{value:g}`" if isinstance(value, float) else f"`{value}`"


def test_every_variable_is_documented_with_its_default_and_no_other_is() -> None:
    rows = _rows()
    assert sorted(rows) == sorted(name.upper() for name in EnvSettings.model_fields)
    defaults = {name.upper(): _default(field.default) for name, field in EnvSettings.model_fields.items()}
    assert {name: default for name, (_, default) in rows.items()} == defaults


def test_a_flag_is_documented_as_a_flag_and_a_number_as_a_number() -> None:
    kinds = {"bool": "flag", "int": "whole number", "float": "number", "tuple": "list", "Path": "path", "str": "text"}
    rows = _rows()
    for name, field in EnvSettings.model_fields.items():
        annotation = str(field.annotation)
        expected = next(kind for word, kind in kinds.items() if word in annotation)
        assert rows[name.upper()][0] == expected, name
