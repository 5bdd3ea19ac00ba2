"""``python -m agent_core sessions schema``: print the session file's JSON Schema."""

from __future__ import annotations

import argparse
import json

from agent_core.cli.common import EXIT_OK, subcommand
from agent_core.store.files import session_file_schema


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``schema`` under ``sessions``."""
    subcommand(sub, "schema", "print the JSON Schema of a session file (what export writes and import accepts)", cmd)


def cmd(args: argparse.Namespace) -> int:
    """Print the schema, indented."""
    print(json.dumps(session_file_schema(), ensure_ascii=False, indent=2))
    return EXIT_OK
