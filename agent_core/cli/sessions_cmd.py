"""``python -m agent_core sessions ...``: list, show, export, import, rename, delete, resume, export-trace."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from agent_core.cli import examples_cmd as examples
from agent_core.cli import schema_cmd as schema
from agent_core.cli import whatif_cmd as whatif
from agent_core.cli.common import (
    EXIT_OK,
    EXIT_RUN_FAILED,
    CliError,
    add_approval_option,
    add_content_option,
    add_model_options,
    agent_from_args,
    approvals_of,
    open_store,
    store_errors,
    subcommand,
)
from agent_core.cli.mcp_option import add_mcp_option
from agent_core.cli.terminal import report, with_sigint
from agent_core.events import Event, RunFinished, RunStarted
from agent_core.examples import example_name
from agent_core.guards.limits import CancelToken
from agent_core.guards.safe_write import write_output
from agent_core.longterm.memory_store import MemoryStore
from agent_core.longterm.memory_tools import connect_memory
from agent_core.models.pricing import PriceTable, PricingError, prices_from_env
from agent_core.runtime.session_runs import NothingToResume, resume_run
from agent_core.store import (
    MAX_IMPORT_BYTES,
    SessionFileError,
    SessionInfo,
    export_session,
    import_session,
)
from agent_core.trace_export import (
    FORMATS,
    OtelExportError,
    OtelUnavailable,
    export_trace,
    otlp_endpoint,
    send_otlp,
)
from agent_core.trace_export.live_export import live_export
from agent_core.views.formatting import UNKNOWN, format_cost, format_timestamp
from agent_core.views.metrics import session_metrics


def _register_resume(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    resume = _command(sub, "resume", "continue a session's interrupted run after its last complete step", cmd_resume)
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
    show = _command(sub, "show", "show a session: metadata, snapshots and each run", cmd_show, with_id=True)
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
        cmd_export_trace,
    )
    trace.add_argument("id", help="session id")
    trace.add_argument("--format", choices=FORMATS, default="jsonl", help="jsonl (default), otel, md or html")
    trace.add_argument("--lang", choices=("en", "zh"), default="en", help="html: the report's language")
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
        sessions = open_store(args).list_sessions(limit=args.limit)
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


def cmd_show(args: argparse.Namespace) -> int:
    """Print a session's metadata, snapshots and runs (or its events as JSON lines)."""
    store = open_store(args)
    with store_errors():
        session = store.get_session(args.id)
        events = store.events(args.id)
        snapshots = store.list_snapshots(args.id)
        interrupted = store.interrupted_run(args.id)
        starters = store.run_starters(args.id)
    if args.json:
        for event in events:
            line = event.to_dict()
            if interrupted is not None and event.type == "run_started" and event.run_id == interrupted.run_id:
                line["interrupted"] = True  # as the text output says: `sessions resume` continues this run
            print(json.dumps(line, ensure_ascii=False))
        return EXIT_OK
    config = session.config
    print(f"{session.id}  {session.title}")
    print(
        f"created {format_timestamp(session.created_at)} · updated {format_timestamp(session.updated_at)}"
        f" · {session.last_seq} events"
    )
    print(f"model {config.model or '?'} · protocol {config.protocol} · endpoint {config.base_url or 'default'}")
    if session.owner:
        print(f"owner {session.owner}")
    if session.imported_at is not None:
        print(f"imported copy: imported from a session file {format_timestamp(session.imported_at)}")
    if session.forked_from:
        print(f"forked from snapshot {session.forked_from} of {session.parent_id or 'a deleted session'}")
    for snap in snapshots:
        print(f"snapshot {snap.id}  {snap.name!r} (up to event {snap.upto_seq}, {format_timestamp(snap.created_at)})")
    for line in _run_lines(events, starters):
        print(line)
    if interrupted:
        print(f"interrupted: run {interrupted.run_id}; continue it with `sessions resume {session.id}`")
    return EXIT_OK


def _run_lines(events: list[Event], starters: dict[str, str]) -> Iterator[str]:
    costs = {
        r.run_id: format_cost(r.cost, estimated=r.usage.estimated)
        for r in session_metrics(events, prices=_prices()).runs
    }
    for event in events:
        if isinstance(event, RunStarted):
            who = starters.get(event.run_id)
            yield f"\n▶ {event.question}" + (f"  (started by {who})" if who else "")
        elif isinstance(event, RunFinished):
            usage = event.usage
            yield (
                f"  {'✓' if event.status == 'completed' else '✗'} {event.status} · {event.steps} steps · "
                f"{event.tool_calls} tool calls · {usage.total_tokens:,} tokens · {costs.get(event.run_id, UNKNOWN)} · "
                f"{event.duration_ms / 1000:.2f} s"
            )
            if event.final_answer is not None:
                yield "  " + event.final_answer.replace("\n", "\n  ")
            elif event.error:
                yield f"  {event.error}"


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
            session = open_store(args).rename_session(args.id, args.title)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    print(f"{session.id}  {session.title}")
    return EXIT_OK


def cmd_delete(args: argparse.Namespace) -> int:
    """Delete a session with its events and snapshots."""
    with store_errors():
        open_store(args).delete_session(args.id)
    print(f"deleted {args.id}", file=sys.stderr)
    return EXIT_OK


def cmd_resume(args: argparse.Namespace) -> int:
    """Resume the session's interrupted run with its stored protocol and settings, recording it."""
    store = open_store(args)
    with store_errors():
        session = store.get_session(args.id)
        interrupted = store.interrupted_run(args.id)
        if interrupted is None:
            raise NothingToResume(f"session {args.id} has no interrupted run")
        started_by = store.run_starters(args.id).get(interrupted.run_id)
        agent = connect_memory(
            agent_from_args(args, session.config), MemoryStore(store.engine, actor=store.actor), session_id=args.id
        )
        cancel = CancelToken()
        earlier = store.events(args.id)
        events = resume_run(store, args.id, agent, cancel=cancel)  # claims the run now: refused if it is alive
    live = partial(
        live_export, session_id=args.id, include_content=args.include_content, earlier=earlier, started_by=started_by
    )
    return report(with_sigint(cancel, lambda: live(events)), as_json=args.json, approvals=approvals_of(args))


def _prices() -> PriceTable:
    """The catalogue with $SPARROW_PRICES applied; a malformed value is the command's one-line error."""
    try:
        return prices_from_env()
    except PricingError as exc:
        raise CliError(str(exc)) from None


def cmd_export_trace(args: argparse.Namespace) -> int:
    """Write the trace; with --format otel and OTEL_EXPORTER_OTLP_ENDPOINT set, also send it there."""
    store = open_store(args)
    with store_errors():
        info = store.get_session(args.id)
        events, title = store.events(args.id), info.title
        starters = store.run_starters(args.id)
    prices = _prices()
    options: dict[str, Any] = {
        "jsonl": {},
        "otel": {"session_id": args.id, "include_content": args.include_content, "prices": prices},
        "md": {"title": f"Sparrow session {args.id}", "prices": prices},
        "html": {"title": title, "prices": prices, "lang": args.lang},
    }[args.format]
    text = export_trace(events, args.format, starters=starters, **options)
    data = (text if text.endswith("\n") or args.output not in (None, "-") else text + "\n").encode("utf-8")
    with store_errors():
        where = write_output(args.output or "-", data)
    if args.output and args.output != "-":
        print(f"wrote {where}", file=sys.stderr)
    if args.format == "otel" and (url := otlp_endpoint()):
        try:
            sent = send_otlp(events, starters=starters, **options)
        except OtelUnavailable as exc:
            raise CliError(str(exc)) from None
        except OtelExportError as exc:
            raise CliError(str(exc), EXIT_RUN_FAILED) from None
        print(f"sent {sent} spans to {url}", file=sys.stderr)
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
