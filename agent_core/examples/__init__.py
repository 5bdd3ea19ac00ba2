"""Example sessions shipped with Sparrow: real event logs of scripted runs, to show its views without a model.

Each is a session file (``sessions/<name>.sparrow.json``) made by ``python -m agent_core.examples.build``,
which runs the real agent loop with a scripted model (``agent_core.testing``) and the real built-in tools,
then exports the session. They are imported through the normal path (``import_session``) and carry a
marker in their configuration (``settings["sparrow_example"]``) so every view can label them as examples
written to show Sparrow, not a live model's output, and keep them apart from the user's own sessions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_core.runtime import EXAMPLE_KEY
from agent_core.store import SessionInfo, SessionStore, import_session

FILES = Path(__file__).parent / "sessions"
"""Where the example session files live."""


@dataclass(frozen=True)
class Example:
    """One shipped example session."""

    name: str
    """Short name, used on the command line (``sessions examples NAME``)."""
    title: str
    """The session's title."""
    summary: str
    """What the example shows, in one line."""
    protocol: str
    """``react`` or ``tools``."""

    @property
    def path(self) -> Path:
        """The example's session file."""
        return FILES / f"{self.name}.sparrow.json"


EXAMPLES: tuple[Example, ...] = (
    Example(
        "dates",
        "Example · dates and a calculator (ReAct)",
        "A date question and a percentage in ReAct text, with a follow-up turn that uses the conversation.",
        "react",
    ),
    Example(
        "parallel",
        "Example · parallel tool calls (native tools)",
        "Native tool calling: three tool calls in one step, run in parallel, then the answer.",
        "tools",
    ),
    Example(
        "recovery",
        "Example · recovering from errors (ReAct)",
        "The model breaks the format and a tool fails; both errors go back to the model, which recovers.",
        "react",
    ),
    Example(
        "chinese",
        "示例 · 日期与计算（中文，ReAct）",
        "A question in Chinese, answered in Chinese, with full-width colons the parser accepts.",
        "react",
    ),
)
"""Every shipped example, in the order they are offered."""


def example(name: str) -> Example:
    """The example called ``name``; KeyError naming the known ones otherwise."""
    for item in EXAMPLES:
        if item.name == name:
            return item
    raise KeyError(f"no example {name!r}; the examples are: {', '.join(e.name for e in EXAMPLES)}")


def example_name(info: SessionInfo | None) -> str | None:
    """The example a session was imported from, or None for the user's own sessions."""
    if info is None:
        return None
    value = info.config.settings.get(EXAMPLE_KEY)
    return value if isinstance(value, str) and value else None


def split_examples(sessions: Sequence[SessionInfo]) -> tuple[list[SessionInfo], list[SessionInfo]]:
    """(the user's own sessions, the imported examples), each in the given order."""
    own = [s for s in sessions if example_name(s) is None]
    return own, [s for s in sessions if example_name(s) is not None]


def open_example(store: SessionStore, name: str) -> SessionInfo:
    """The session of example ``name``: the one already imported, else a fresh import of its file."""
    wanted = example(name)
    for info in store.sessions.list():
        if example_name(info) == wanted.name:
            return info
    return import_session(store, wanted.path.read_bytes())


__all__ = ["EXAMPLES", "EXAMPLE_KEY", "FILES", "Example", "example", "example_name", "open_example", "split_examples"]
