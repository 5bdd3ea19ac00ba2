"""``python -m agent_core db ...``: bring the database's schema up to date, or say where it stands."""

from __future__ import annotations

import argparse

from agent_core.cli.common import EXIT_OK, EXIT_RUN_FAILED, store_errors, subcommand
from agent_core.store.database import SchemaState, head_revision, schema_state, upgrade_database


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``db`` command and its subcommands."""
    db = subparsers.add_parser("db", help="upgrade the database schema, or show its revision")
    sub = db.add_subparsers(dest="db_command", required=True)
    subcommand(sub, "upgrade", "migrate the database to this build's schema (safe from many processes)", cmd_upgrade)
    subcommand(sub, "current", "print the database's schema revision (exit 1 unless it is this build's)", cmd_current)


def cmd_upgrade(args: argparse.Namespace) -> int:
    """Migrate to the head revision; prints what was done."""
    with store_errors():
        before, head = upgrade_database(args.db)
    print(f"{_describe(before)} -> {head}" if before.revision != head else f"already at {head}")
    return EXIT_OK


def cmd_current(args: argparse.Namespace) -> int:
    """Print the revision and whether it is this build's head; a database newer than the build is an error."""
    with store_errors():
        state = schema_state(args.db)
    head = head_revision()
    if state.at_head:
        same = "" if state.revision == head else f": the schema of {head}"
        print(f"{state.revision} (head{same})")
        return EXIT_OK
    print(f"{_describe(state)} (this build's head is {head}: run `python -m agent_core db upgrade`)")
    return EXIT_RUN_FAILED


def _describe(state: SchemaState) -> str:
    return state.revision or "empty"
