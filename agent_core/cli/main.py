"""The command line's entry point: builds the parser from the command groups and runs the chosen command.

Each group is a module with ``register(subparsers)`` adding one top-level command. Only the chosen command's
module is imported (``--help`` imports none), so a command pays for what it uses; the others appear in
``--help`` through the one-line help of ``COMMANDS`` (a test checks it matches what each group registers).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from agent_core.cli.conventions import program_name, version
from agent_core.cli.exit_codes import EXIT_RUN_FAILED, EXIT_USAGE, CliError
from agent_core.process_resources import owning

COMMANDS: dict[str, tuple[str, str]] = {
    "ask": ("agent_core.cli.ask_cmd", "answer a question, printing the live trace to stderr"),
    "tools": ("agent_core.cli.tools_cmd", "list the available tools and their parameter schemas"),
    "sessions": ("agent_core.cli.sessions_cmd", "list, show, export, import, delete or resume saved sessions"),
    "memory": ("agent_core.cli.memory_cmd", "list, add, search, delete or clear long-term memories"),
    "access": ("agent_core.cli.access_cmd", "share sessions read-only; claim data saved without sign-in"),
    "db": ("agent_core.cli.db_cmd", "upgrade the database schema, or show its revision"),
    "eval": ("agent_core.cli.eval_cmd", "datasets and experiments: run a dataset through the agent, score it"),
    "worker": ("agent_core.cli.worker_cmd", "run experiment units from the job queue (PostgreSQL)"),
    "local": ("agent_core.cli.local_cmd", "the built-in small model for trying Sparrow offline"),
}
"""Each command: the module that registers it (``register(subparsers)``) and its line in ``--help``, in order."""


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser: the command named in ``argv`` in full (every command when ``argv`` is None)."""
    parser = argparse.ArgumentParser(prog=program_name(), description="Sparrow: a transparent ReAct agent.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    chosen = set(COMMANDS) if argv is None else set(argv[:1]) & COMMANDS.keys()
    for name, (module, help_text) in COMMANDS.items():
        if name in chosen:
            importlib.import_module(module).register(sub)
        else:
            sub.add_parser(name, help=help_text)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point; every failure ends as one line on stderr and a non-zero exit code."""
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv).parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        with owning():  # the command owns what it starts (MCP servers, trace senders, ...): stopped as it returns
            return handler(args)
    except CliError as exc:
        print(f"sparrow: {exc}", file=sys.stderr)
        return exc.code
    except BrokenPipeError:
        return EXIT_RUN_FAILED
    except Exception as exc:  # never a raw traceback for the user
        if _loaded_error(exc, "agent_core.env_settings", "EnvSettingsError"):  # a bad variable: one sentence
            print(f"sparrow: {exc}", file=sys.stderr)
            return EXIT_USAGE
        if _loaded_error(exc, "agent_core.store.database", "DatabaseUnavailable"):  # a long outage stopped a run
            print(f"sparrow: {exc}", file=sys.stderr)
            return EXIT_RUN_FAILED
        print(f"sparrow: unexpected error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_RUN_FAILED


def _loaded_error(exc: Exception, module: str, name: str) -> bool:
    """True when ``exc`` is ``module.name``, looked up only if that module was loaded (--help loads neither)."""
    loaded = sys.modules.get(module)
    return loaded is not None and isinstance(exc, getattr(loaded, name))
