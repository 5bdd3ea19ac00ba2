"""The command line's entry point: builds the parser from the command groups and runs the chosen command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from agent_core.cli import access, ask, db, memory, sessions, tools
from agent_core.cli.common import EXIT_RUN_FAILED, CliError
from agent_core.cli.conventions import program_name, version

COMMAND_GROUPS = (ask, tools, sessions, memory, access, db)
"""Each module adds its commands with ``register(subparsers)``, in this order in ``--help``."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = argparse.ArgumentParser(prog=program_name(), description="Sparrow: a transparent ReAct agent.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    for group in COMMAND_GROUPS:
        group.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point; every failure ends as one line on stderr and a non-zero exit code."""
    args = build_parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except CliError as exc:
        print(f"sparrow: {exc}", file=sys.stderr)
        return exc.code
    except BrokenPipeError:
        return EXIT_RUN_FAILED
    except Exception as exc:  # never a raw traceback for the user
        print(f"sparrow: unexpected error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_RUN_FAILED
