"""The command line starts at once: ``--help`` loads no settings library, ``sessions list`` only the store (§5)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from agent_core.cli.main import build_parser
from agent_core.cli.sessions_cmd import TRACE_FORMATS
from agent_core.cli.whatif_options import PROTOCOL_NAMES
from agent_core.engine.protocols import PROTOCOLS
from agent_core.trace_export import FORMATS
from agent_core.views import LANGS

ROOT = Path(__file__).resolve().parents[2]


def _modules_after(argv: list[str], where: Path) -> set[str]:
    """Every module imported by ``python -m agent_core ARGV`` run in ``where``."""
    code = (
        "import sys, runpy; sys.argv = ['agent_core', *sys.argv[1:]]\n"
        "try: runpy.run_module('agent_core', run_name='__main__')\n"
        "except SystemExit: pass\n"
        "import json; print(json.dumps(sorted(sys.modules)))"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "SPARROW_DATA_DIR": str(where)}
    done = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=60, check=True, cwd=where, env=env
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_help_does_not_import_the_settings_library(tmp_path: Path) -> None:
    assert "pydantic_settings" not in _modules_after(["--help"], tmp_path)


def test_listing_sessions_imports_the_store_and_not_the_engine_the_tools_or_the_exporters(tmp_path: Path) -> None:
    loaded = _modules_after(["sessions", "list"], tmp_path)
    assert "agent_core.store.sessions" in loaded
    parts = (
        "agent_core.engine",
        "agent_core.tools",
        "agent_core.trace_export",
        "agent_core.longterm",
        "urllib.request",
    )
    assert sorted(m for m in loaded if m.startswith(parts)) == []


def test_the_cli_lists_the_protocols_and_trace_formats_the_library_has() -> None:
    assert sorted(PROTOCOL_NAMES) == sorted(PROTOCOLS)
    assert TRACE_FORMATS == FORMATS


def _lang_choices(parser: argparse.ArgumentParser, path: str = "") -> dict[str, object]:
    """The choices of every ``--lang`` option in the parser and its subcommands, by command path."""
    found: dict[str, object] = {}
    for action in parser._actions:
        if "--lang" in action.option_strings:
            found[path] = action.choices
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found |= _lang_choices(sub, f"{path} {name}".strip())
    return found


def test_every_lang_option_offers_the_one_list_of_languages() -> None:
    choices = _lang_choices(build_parser())
    assert sorted(choices) == ["eval show", "sessions export-trace"]
    assert all(offered is LANGS for offered in choices.values())
