"""``python -m agent_core sessions ...``: list, show, export, import, rename, delete, resume, export-trace."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from agent_core.cli import examples_cmd as examples
from agent_core.cli import schema_cmd as schema
from agent_core.cli import whatif_options as whatif
from agent_core.cli.common import (
    EXIT_OK,
    CliError,
    add_approval_option,
    add_content_option,
    add_model_options,
    open_store,
    store_errors,
    subcommand,
)
from agent_core.cli.mcp_option import add_mcp_option
from agent_core.examples import example_name
from agent_core.formatting import format_timestamp
from agent_core.guards.safe_write import write_output
from agent_core.lazy_exports import deferred
from agent_core.store import (
    MAX_IMPORT_BYTES,
    SessionFileError,
    SessionInfo,
    export_session,
    import_session,
)
from agent_core.views import LANGS

RUNS = "agent_core.cli.session_runs_cmd"
TRACE_FORMATS = ("jsonl", "otel", "md", "html")
"""``trace_export.FORMATS`` (a test holds them equal), without importing every exporter to list sessions."""
"""Where ``show``, ``resume`` and ``export-trace`` live (imported when one of them runs)."""


def _register_resume(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    resume = _command(
        sub, "resume", "continue a session's interrupted run after its last complete step", deferred(RUNS, "cmd_resume")
    )
    resume.add_argument("id", help="session id")
    add_model_options(resume)
    resume.add_argument("--json", action="store_true", help="print one JSON event per line on stdout")
    add_approval_option(resume)
    add_content_option(resume)
    add_mcp_option(resume)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``sessions`` command and its subcommands."""
    sessions = subparsers.add_parser("sessions", help="list, show, export, import, delete or resume saved sessions")
    sub = sessions.add_subparsers(dest="sessions_command", required=True)
    listing = _command(sub, "list", "list sessions, most recent first", cmd_list)
    listing.add_argument("--limit", type=int, help="show at most this many")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    show = _command(
        sub, "show", "show a session: metadata, snapshots and each run", deferred(RUNS, "cmd_show"), with_id=True
    )
    show.add_argument("--json", action="store_true", help="print its events, one JSON object per line")
    export = _command(sub, "export", "write a session file (JSON) to -o FILE or stdout", cmd_export, with_id=True)
    export.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout (- is stdout)")
    importing = _command(sub, "import", "import a session file; prints the new session's id", cmd_import)
    importing.add_argument("file", help="a session file, or - for stdin")
    rename = _command(sub, "rename", "give a session a new title", cmd_rename, with_id=True)
    rename.add_argument("title")
    _command(sub, "delete", "delete a session with its events and snapshots", cmd_delete, with_id=True)
    examples.register(sub)
    whatif.register(sub)
    schema.register(sub)
    _register_resume(sub)
    trace = _command(
        sub,
        "export-trace",
        "export a session's trace as JSON Lines, OTLP/JSON, a Markdown report or a self-contained HTML report",
        deferred(RUNS, "cmd_export_trace"),
    )
    trace.add_argument("id", help="session id")
    trace.add_argument("--format", choices=TRACE_FORMATS, default="jsonl", help="jsonl (default), otel, md or html")
    trace.add_argument("--lang", choices=LANGS, default="en", help="html: the report's language")
    trace.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout (- is stdout)")
    trace.add_argument(
        "--include-content",
        action="store_true",
        help="otel: put prompts, replies and tool arguments/results on the spans (may hold personal data)",
    )


def _command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    help_text: str,
    handler: Callable[[argparse.Namespace], int],
    *,
    with_id: bool = False,
) -> argparse.ArgumentParser:
    parser = subcommand(sub, name, help_text, handler)
    if with_id:
        parser.add_argument("id", help="session id")
    return parser


def cmd_list(args: argparse.Namespace) -> int:
    """Print the sessions, most recently updated first."""
    with store_errors():
        sessions = open_store(args).sessions.list(limit=args.limit)
    if args.json:
        print(json.dumps([_session_json(s) for s in sessions], ensure_ascii=False, indent=2))
        return EXIT_OK
    if not sessions:
        print("no sessions yet", file=sys.stderr)
    for s in sessions:
        print(f"{s.id}  {format_timestamp(s.updated_at)}  {s.last_seq:>6} events  {s.title}{_mark(s)}")
    return EXIT_OK


def _mark(session: SessionInfo) -> str:
    """What a listed session is, when it is not the user's own: a shipped example, or an imported copy."""
    if example_name(session):
        return "  [example: scripted, not a live model]"
    if session.imported_at is not None:
        return f"  [imported copy, {format_timestamp(session.imported_at)}]"
    return ""


def cmd_export(args: argparse.Namespace) -> int:
    """Write the session file to ``-o FILE`` (atomically) or to stdout."""
    with store_errors():
        data = export_session(open_store(args), args.id)
        where = write_output(args.output or "-", data)
        if args.output and args.output != "-":
            print(f"exported {args.id} to {where}", file=sys.stderr)
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    """Import a session file and print the new session's id."""
    with store_errors():
        data = _read_limited(args.file)
        session = import_session(open_store(args), data)
    print(session.id)
    return EXIT_OK


def _read_limited(name: str) -> bytes:
    """The file's bytes, refusing more than MAX_IMPORT_BYTES without reading them all."""
    if name == "-":
        data = sys.stdin.buffer.read(MAX_IMPORT_BYTES + 1)
    else:
        with open(name, "rb") as handle:
            data = handle.read(MAX_IMPORT_BYTES + 1)
    if len(data) > MAX_IMPORT_BYTES:
        raise SessionFileError(f"the file is larger than the limit of {MAX_IMPORT_BYTES:,} bytes")
    return data


def cmd_rename(args: argparse.Namespace) -> int:
    """Give a session a new title."""
    with store_errors():
        try:
            session = open_store(args).sessions.rename(args.id, args.title)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    print(f"{session.id}  {session.title}")
    return EXIT_OK


def cmd_delete(args: argparse.Namespace) -> int:
    """Delete a session with its events and snapshots."""
    with store_errors():
        open_store(args).sessions.delete(args.id)
    print(f"deleted {args.id}", file=sys.stderr)
    return EXIT_OK


def _session_json(session: SessionInfo) -> dict[str, object]:
    return {
        "id": session.id,
        "title": session.title,
        "created_at": session.created_at,
        "updated_at": session.updated_at,
        "events": session.last_seq,
        "model": session.config.model,
        "protocol": session.config.protocol,
        "parent_id": session.parent_id,
        "example": example_name(session),
        "imported_at": session.imported_at,
    }
