"""``python -m agent_core sessions show | resume | export-trace``: the subcommands that read or continue whole runs.

``sessions`` registers them (``sessions_cmd``); this module, with the metrics, prices, trace exports and the
agent it needs, is imported only when one of them runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from functools import partial
from typing import Any

from agent_core.cli.agent_options import agent_from_args, approvals_of
from agent_core.cli.common import (
    EXIT_OK,
    EXIT_RUN_FAILED,
    CliError,
    open_store,
    store_errors,
)
from agent_core.cli.terminal import report, with_sigint
from agent_core.events import Event, RunFinished, RunStarted
from agent_core.formatting import UNKNOWN, format_cost, format_timestamp
from agent_core.guards.limits import CancelToken
from agent_core.guards.safe_write import write_output
from agent_core.longterm.memory import MemoryStore
from agent_core.longterm.tools import connect_memory
from agent_core.models.pricing import PriceTable, PricingError, prices_from_env
from agent_core.runtime.sessions import NothingToResume, resume_run
from agent_core.trace_export import (
    OtelExportError,
    OtelUnavailable,
    export_trace,
    otlp_endpoint,
    send_otlp,
)
from agent_core.trace_export.sending import live_export
from agent_core.views.metrics import session_metrics


def cmd_show(args: argparse.Namespace) -> int:
    """Print a session's metadata, snapshots and runs (or its events as JSON lines)."""
    store = open_store(args)
    with store_errors():
        session = store.sessions.get(args.id)
        events = store.log.events(args.id)
        snapshots = store.snapshots.list(args.id)
        interrupted = store.runs.interrupted(args.id)
        starters = store.log.run_starters(args.id)
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


def cmd_resume(args: argparse.Namespace) -> int:
    """Resume the session's interrupted run with its stored protocol and settings, recording it."""
    store = open_store(args)
    with store_errors():
        session = store.sessions.get(args.id)
        interrupted = store.runs.interrupted(args.id)
        if interrupted is None:
            raise NothingToResume(f"session {args.id} has no interrupted run")
        started_by = store.log.run_starters(args.id).get(interrupted.run_id)
        agent = connect_memory(
            agent_from_args(args, session.config), MemoryStore(store.engine, actor=store.actor), session_id=args.id
        )
        cancel = CancelToken()
        earlier = store.log.events(args.id)
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
        info = store.sessions.get(args.id)
        events, title = store.log.events(args.id), info.title
        starters = store.log.run_starters(args.id)
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
