"""``python -m agent_core memory ...``: list, add, search, delete and clear long-term memories."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from agent_core.cli.common import EXIT_OK, EXIT_USAGE, CliError, open_store, store_errors, subcommand
from agent_core.formatting import format_timestamp
from agent_core.longterm.guard import default_scope
from agent_core.longterm.memory import MemoryRecord, MemoryStore


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``memory`` command and its subcommands."""
    memory = subparsers.add_parser("memory", help="list, add, search, delete or clear long-term memories")
    sub = memory.add_subparsers(dest="memory_command", required=True)
    listing = _command(sub, "list", "list a scope's memories, newest first", cmd_list)
    listing.add_argument("--limit", type=int, help="show at most this many")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    add = _command(sub, "add", "save a fact (checked by the poisoning guard); prints its id", cmd_add)
    add.add_argument("fact", help="one fact, 3 to 500 characters, e.g. 'The user prefers metric units'")
    search = _command(sub, "search", "search a scope's memories, best match first", cmd_search)
    search.add_argument("query")
    search.add_argument("--limit", type=int, default=10, help="show at most this many (default 10)")
    search.add_argument("--json", action="store_true", help="print a JSON array (with ranks and scores)")
    delete = _command(sub, "delete", "delete one memory", cmd_delete, scoped=False)
    delete.add_argument("id", help="memory id, as `memory list` shows it (12 or #12)")
    clear = _command(sub, "clear", "delete every memory of a scope", cmd_clear, scoped=False)
    clear.add_argument("--scope", required=True, help="the scope to clear")
    clear.add_argument("--yes", action="store_true", help="confirm: the memories cannot be recovered")
    _command(sub, "scopes", "list the scopes that hold memories", cmd_scopes, scoped=False)


def _command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    help_text: str,
    handler: Callable[[argparse.Namespace], int],
    *,
    scoped: bool = True,
) -> argparse.ArgumentParser:
    parser = subcommand(sub, name, help_text, handler)
    if scoped:
        parser.add_argument("--scope", help="user or workspace (default: $SPARROW_MEMORY_SCOPE or 'default')")
    return parser


def open_memories(args: argparse.Namespace) -> MemoryStore:
    """The memory store in the database of ``--db`` (or the default one)."""
    store = open_store(args)
    return MemoryStore(store.engine, actor=store.actor)


def _scope(args: argparse.Namespace) -> str:
    with store_errors():
        return args.scope or default_scope()


def cmd_list(args: argparse.Namespace) -> int:
    """Print a scope's memories, newest first."""
    scope = _scope(args)
    with store_errors():
        records = open_memories(args).list(scope, limit=args.limit)
    return _print(records, as_json=args.json, empty=f"no memories in scope {scope!r}")


def cmd_add(args: argparse.Namespace) -> int:
    """Save a fact and print its id (the id of the same fact if it was already saved)."""
    scope = _scope(args)
    with store_errors():
        record = open_memories(args).add(args.fact, scope)
    note = f"already saved as #{record.id}" if record.existing else f"saved #{record.id} in scope {scope!r}"
    print(note, file=sys.stderr)
    print(record.id)
    return EXIT_OK


def cmd_search(args: argparse.Namespace) -> int:
    """Print the memories that match a query, best first."""
    scope = _scope(args)
    with store_errors():
        records = open_memories(args).search(args.query, scope, args.limit)
    return _print(records, as_json=args.json, empty=f"no memories in scope {scope!r} match {args.query!r}")


def cmd_delete(args: argparse.Namespace) -> int:
    """Delete one memory by id."""
    memory_id = _memory_id(args.id)
    with store_errors():
        open_memories(args).delete(memory_id)
    print(f"deleted memory #{memory_id}", file=sys.stderr)
    return EXIT_OK


def cmd_clear(args: argparse.Namespace) -> int:
    """Delete every memory of a scope (only with --yes)."""
    if not args.yes:
        raise CliError(f"clear deletes every memory of scope {args.scope!r} for good; add --yes to confirm")
    with store_errors():
        deleted = open_memories(args).clear(args.scope)
    print(f"deleted {deleted} {'memory' if deleted == 1 else 'memories'} of scope {args.scope!r}", file=sys.stderr)
    return EXIT_OK


def cmd_scopes(args: argparse.Namespace) -> int:
    """Print each scope that holds memories, with how many."""
    with store_errors():
        memories = open_memories(args)
        counts = [(scope, memories.count(scope)) for scope in memories.scopes()]
    if not counts:
        print("no memories yet", file=sys.stderr)
    for scope, count in counts:
        print(f"{scope}  {count}")
    return EXIT_OK


def _memory_id(raw: str) -> int:
    text = raw.strip().removeprefix("#")
    if not text.isdigit():
        raise CliError(f"{raw!r} is not a memory id (a number, as `memory list` shows)", EXIT_USAGE)
    return int(text)


def _print(records: list[MemoryRecord], *, as_json: bool, empty: str) -> int:
    if as_json:
        print(json.dumps([r.to_dict() for r in records], ensure_ascii=False, indent=2))
        return EXIT_OK
    if not records:
        print(empty, file=sys.stderr)
    for record in records:
        print(_line(record))
    return EXIT_OK


def _line(record: MemoryRecord) -> str:
    when = format_timestamp(record.created_at)
    source = record.source_session_id or "-"
    if record.source_deleted:
        source += " (deleted)"
    rank = f"  rank {record.rank}" if record.rank is not None else ""
    return f"#{record.id}{rank}  {when}  {record.origin:<5}  {source}  {record.text}"
