"""The shape rules of agent_core: no import cycle, no part importing one above it, quick command start-up."""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
from pathlib import Path

from agent_core.cli.main import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parents[2] / "agent_core"


def _modules() -> dict[str, ast.Module]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return found


def _imports(tree: ast.Module, modules: dict[str, ast.Module]) -> set[str]:
    """The agent_core modules a module imports, wherever the import sits (a deferred import still ties them)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names if alias.name in modules}
        elif isinstance(node, ast.ImportFrom) and node.module in modules:
            subs = {f"{node.module}.{alias.name}" for alias in node.names} & modules.keys()
            out |= subs or {node.module}
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module, or a module importing itself (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph[node]:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_inside_agent_core() -> None:
    modules = _modules()
    assert _cycles({name: _imports(tree, modules) for name, tree in modules.items()}) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


LAYERS: tuple[tuple[str, ...], ...] = (
    ("env_settings", "process_resources", "lazy_exports"),
    ("events",),
    ("formatting",),
    ("guards",),
    ("tools",),
    ("models",),
    ("engine",),
    ("views",),
    ("store",),
    ("testing",),
    ("longterm",),
    ("trace_export",),
    ("runtime",),
    ("examples",),
    ("experiments",),
    ("cli", "__main__", "__init__"),
)
"""agent_core's parts from the ground up: a part imports only parts on its own floor or below."""
CLIMBS_LEFT: set[tuple[str, str]] = set()
"""Imports that still climb (issue 28 §3 removes each); the test fails on any other, and on one listed here that
no longer exists."""


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_no_part_imports_one_above_it() -> None:
    floor = {name: i for i, names in enumerate(LAYERS) for name in names}
    modules = _modules()
    climbs = {
        (_part(name), _part(target))
        for name, tree in modules.items()
        for target in _imports(tree, modules)
        if floor[_part(target)] > floor[_part(name)]
    }
    assert climbs == CLIMBS_LEFT


DEFERRED_IMPORTS = {
    "agent_core.cli.main": "only the chosen command's group is imported, so --help imports none of them",
    "agent_core.lazy_exports": "packages export names imported on first use (PEP 562), and a command's handlers are "
    "loaded when it runs (lazy_exports.deferred): a command loads what it uses",
    "agent_core.experiments.runner": "Procrastinate (the postgres extra) is needed only by workers and --queue",
    "agent_core.engine.attachments": "pypdf takes ~0.3 s to import; only an attached PDF needs it",
    "agent_core.tools.mcp": "the MCP SDK takes ~0.8 s to import; only a configured server needs it",
    "agent_core.models.pricing": "genai-prices takes ~1 s to import (its price snapshot); only a cost needs it",
    "agent_core.tools.plugins": "plugin modules are named by the user (SPARROW_TOOLS, entry points)",
    "agent_core.trace_export.sending": "the OpenTelemetry SDK is an optional extra, needed only to send",
}
"""The modules allowed to import something on first use (through importlib), each with its reason."""


def test_a_deferred_import_is_one_named_here_with_its_reason() -> None:
    deferring = sorted(
        {
            name
            for name, tree in _modules().items()
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and "import_module" in ast.unparse(node.func)
        }
    )
    assert deferring == sorted(DEFERRED_IMPORTS)


def test_a_command_without_mcp_servers_does_not_import_the_sdk() -> None:
    code = "import sys, agent_core.cli.main; print(sorted({'mcp', 'mcp_types'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


HEAVY = ("openai", "sqlalchemy", "sqlmodel", "alembic", "mcp", "opentelemetry")
"""Packages that take a large part of a second to import: a command that does not need one must not pay for it."""


def _imported_by(argv: list[str], where: Path) -> list[str]:
    """The HEAVY packages imported by ``python -m agent_core ARGV``, run in ``where`` (no ./mcp.json there)."""
    code = (
        "import sys, runpy; sys.argv = ['agent_core', *sys.argv[1:]]\n"
        "try: runpy.run_module('agent_core', run_name='__main__')\n"
        "except SystemExit: pass\n"
        f"import json; print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r})))"
    )
    command = [sys.executable, "-c", code, *argv]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True, cwd=where)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_help_imports_no_heavy_package(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SPARROW_DATA_DIR", str(tmp_path))
    assert _imported_by(["--help"], tmp_path) == []
    assert _imported_by(["sessions", "--help"], tmp_path) == ["sqlalchemy", "sqlmodel"]


def test_listing_tools_or_sessions_imports_neither_the_model_client_nor_more(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SPARROW_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("SPARROW_MCP_CONFIG", raising=False)
    assert _imported_by(["tools"], tmp_path) == []
    assert _imported_by(["sessions", "list"], tmp_path) == ["alembic", "sqlalchemy", "sqlmodel"]  # a new database
    assert _imported_by(["sessions", "list"], tmp_path) == ["sqlalchemy", "sqlmodel"]  # at the head: no migration


def test_the_command_table_says_what_each_group_registers() -> None:
    def helps(parser: argparse.ArgumentParser) -> dict[str, str | None]:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return {choice.dest: choice.help for choice in sub._choices_actions}

    assert helps(build_parser()) == helps(build_parser([])) == {name: text for name, (_, text) in COMMANDS.items()}
    sources = {p.stem: p.read_text(encoding="utf-8") for p in (ROOT / "cli").glob("*.py")}
    groups = {stem for stem, text in sources.items() if "\ndef register(" in text}
    listed = {module.rsplit(".", 1)[1] for module, _ in COMMANDS.values()}
    nested = {
        g
        for g in groups - listed
        if any(re.search(rf"^from agent_core\.cli import [\w, ]*\b{g}\b", sources[m], re.M) for m in listed)
    }
    assert groups - nested == listed  # a group registered under another (sessions examples) is that one's business
