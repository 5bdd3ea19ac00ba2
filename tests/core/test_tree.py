"""The tree shows the architecture: few entries at each root, and every module name used once (issue 21 §3)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
ROOTS = ("agent_core", "sparrow_ui")
MAX_PACKAGES = 13
"""Concepts at each root, each a package (the issue's sketch has about a dozen; experiments made it thirteen)."""
MAX_ROOT_MODULES = 8
"""Modules at each root besides packages: ``__init__``, ``__main__``, ``lazy_exports``, the events every consumer
reads (``events``, with its base in ``event_base`` and the branch events in ``branch_events``), and what every layer
reads from its process: the environment (``env_settings``) and the resources it owns (``process_resources``)."""
KEEP = ("agent_core/store/migrations",)
"""Alembic's files (``env.py``, dated revisions) are named by Alembic's rules, not ours."""


def _modules() -> list[Path]:
    return [
        p
        for root in (*ROOTS, "pages")
        for p in sorted((TOP / root).rglob("*.py"))
        if "__pycache__" not in p.parts and not str(p.relative_to(TOP)).startswith(KEEP)
    ]


def test_each_root_holds_a_dozen_concepts_at_most() -> None:
    for root in ROOTS:
        entries = [p for p in (TOP / root).iterdir() if p.name != "__pycache__"]
        packages = [p.name for p in entries if (p / "__init__.py").exists()]
        modules = [p.name for p in entries if p.suffix == ".py"]
        assert len(packages) <= MAX_PACKAGES, (root, sorted(packages))
        assert len(modules) <= MAX_ROOT_MODULES, (root, sorted(modules))


def test_every_module_name_is_used_once() -> None:
    names = Counter(p.stem for p in _modules() if p.stem not in {"__init__", "__main__"})
    assert sorted(name for name, count in names.items() if count > 1) == []


def test_the_newcomers_landmarks_are_where_the_readme_says() -> None:
    landmarks = [
        "agent_core/engine/loop.py",
        "agent_core/engine/protocols/react_parser.py",
        "agent_core/tools/tool.py",
        "agent_core/runtime/catalog.py",
        "agent_core/store/session_file.py",
        "agent_core/store/tables.py",
        "agent_core/events.py",
        "sparrow_ui/steps/renderer.py",
    ]
    assert [p for p in landmarks if not (TOP / p).is_file()] == []
