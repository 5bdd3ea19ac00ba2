"""What two steps said and did, field by field, diffed as text: thought, action, arguments, observation, answer, error.

Two steps are the same only when every field is: ``81`` against ``refused`` is a changed answer even though
both steps answered. Texts are diffed word by word (``difflib``) so a view can mark what changed.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from agent_core.engine.state import canonical_arguments
from agent_core.views.turns import StepView

FIELDS: tuple[str, ...] = ("thought", "action", "arguments", "observation", "answer", "error")
"""The fields of a step compared, in the order they are shown."""

_WORDS = re.compile(r"\S+\s*|\s+")


@dataclass(frozen=True)
class FieldDiff:
    """One field of two aligned steps ("" where a side has nothing)."""

    name: str
    left: str
    right: str

    @property
    def differs(self) -> bool:
        """True when the two texts are not identical."""
        return self.left != self.right

    def pieces(self) -> list[tuple[str, str]]:
        """The texts merged word by word: ``("equal" | "delete" | "insert", text)``, in reading order."""
        a, b = _WORDS.findall(self.left), _WORDS.findall(self.right)
        out: list[tuple[str, str]] = []
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
            if tag == "equal":
                out.append(("equal", "".join(a[i1:i2])))
                continue
            if i2 > i1:
                out.append(("delete", "".join(a[i1:i2])))
            if j2 > j1:
                out.append(("insert", "".join(b[j1:j2])))
        return out


def step_fields(step: StepView | None) -> dict[str, str]:
    """The compared fields of a step as text (all empty for a missing step)."""
    if step is None:
        return dict.fromkeys(FIELDS, "")
    errors = [e for e in (step.model_error, step.format_error) if e]
    errors += [f"{a.tool}: {a.error}" for a in step.actions if a.error]
    return {
        "thought": step.thought.strip(),
        "action": " + ".join(a.tool for a in step.actions),
        "arguments": "\n".join(canonical_arguments(a.arguments) for a in step.actions),
        "observation": "\n".join(a.output or "" for a in step.actions),
        "answer": step.final_answer or "",
        "error": "\n".join(errors),
    }


def field_diffs(left: StepView | None, right: StepView | None) -> tuple[FieldDiff, ...]:
    """Every field of the two steps, side by side."""
    a, b = step_fields(left), step_fields(right)
    return tuple(FieldDiff(name, a[name], b[name]) for name in FIELDS)
