"""The tree shows the architecture: the landmarks a newcomer looks for are where the README says."""

from __future__ import annotations

from pathlib import Path

TOP = Path(__file__).resolve().parents[2]


def test_the_newcomers_landmarks_are_where_the_readme_says() -> None:
    landmarks = [
        "agent_core/engine/loop.py",
        "agent_core/engine/protocols/react.py",
        "agent_core/tools/tool.py",
        "agent_core/runtime/catalog.py",
        "agent_core/store/files.py",
        "agent_core/store/tables.py",
        "agent_core/events.py",
        "sparrow_ui/steps/renderer.py",
    ]
    assert [p for p in landmarks if not (TOP / p).is_file()] == []
