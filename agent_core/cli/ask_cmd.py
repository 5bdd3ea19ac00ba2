"""``python -m agent_core ask "QUESTION"``: answer one question, recorded in a session unless ``--no-save``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from functools import partial

from agent_core.cli.agent_options import agent_from_args, approvals_of
from agent_core.cli.common import (
    CliError,
    add_approval_option,
    add_content_option,
    add_db_option,
    add_model_options,
    open_store,
    store_errors,
)
from agent_core.cli.mcp_option import add_mcp_option
from agent_core.cli.terminal import report, with_sigint
from agent_core.engine.attachments import AttachmentError, attach_path
from agent_core.engine.protocols import PROTOCOLS
from agent_core.events import Event
from agent_core.guards.limits import CancelToken
from agent_core.longterm.memory import MemoryStore
from agent_core.longterm.tools import connect_memory
from agent_core.runtime.sessions import config_from_agent, load_memory, run_in_session
from agent_core.trace_export.sending import live_export


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``ask`` command."""
    ask = subparsers.add_parser("ask", help="answer a question, printing the live trace to stderr")
    ask.add_argument("question")
    ask.add_argument(
        "--attach",
        action="append",
        default=[],
        metavar="FILE",
        help="attach a file to the question (repeatable): an image, or .txt .md .csv .json .pdf as context",
    )
    add_model_options(ask)
    ask.add_argument(
        "--protocol",
        choices=sorted(PROTOCOLS),
        help="react (ReAct text, the default), tools (native tool calls) or json (schema-constrained JSON replies)",
    )
    ask.add_argument("--max-steps", type=int, help="default 10")
    ask.add_argument("--time-limit", type=float, help="seconds per run (default 300)")
    ask.add_argument("--tool-timeout", type=float, help="seconds per tool call (default 30)")
    ask.add_argument("--temperature", type=float, help="default 0")
    ask.add_argument("--max-tokens", type=int, help="most tokens per model reply (default 4096)")
    ask.add_argument(
        "--repeat-policy",
        choices=("redirect", "allow", "stop"),
        help="a call the run already made: redirect (not run again; the answer is asked for, the default), "
        "allow (run again) or stop (end the run)",
    )
    ask.add_argument("--tools", help="comma-separated tool names to enable (default: all)")
    ask.add_argument("--json", action="store_true", help="print one JSON event per line on stdout")
    add_approval_option(ask)
    add_content_option(ask)
    add_mcp_option(ask)
    saving = ask.add_mutually_exclusive_group()
    saving.add_argument(
        "--session", metavar="ID", help="continue this session (its protocol and settings are defaults)"
    )
    saving.add_argument("--no-save", action="store_true", help="do not record the run in a session")
    add_db_option(ask)
    ask.set_defaults(handler=cmd_ask)


def cmd_ask(args: argparse.Namespace) -> int:
    """Run one question and report it, recorded in a new session (or ``--session ID``) unless ``--no-save``."""
    cancel = CancelToken()
    approvals = approvals_of(args)
    try:
        args.attachments = [attach_path(path) for path in args.attach]
    except AttachmentError as exc:
        raise CliError(str(exc)) from None
    if args.no_save:
        agent = agent_from_args(args)
        live = partial(live_export, include_content=args.include_content)
        try:
            events = agent.run(args.question, cancel=cancel, attachments=args.attachments)
        except AttachmentError as exc:
            raise CliError(str(exc)) from None
        run = with_sigint(cancel, lambda: live(events))
        return report(run, as_json=args.json, approvals=approvals)
    run = with_sigint(cancel, recorded_ask(args, cancel))
    return report(run, as_json=args.json, approvals=approvals)


def recorded_ask(args: argparse.Namespace, cancel: CancelToken) -> Callable[[], Iterator[Event]]:
    """Set up ``ask``'s session (a new one, whose id goes to stderr, or ``--session``) and return the run to start."""
    store = open_store(args)
    with store_errors():
        session = store.sessions.get(args.session) if args.session else None
        agent = agent_from_args(args, session.config if session else None)
        if session is None:
            session = store.sessions.create(config_from_agent(agent))
            print(f"session: {session.id}", file=sys.stderr, flush=True)
        else:
            load_memory(agent, store.log.events(session.id))
        interrupted = store.runs.interrupted(session.id)
        connect_memory(agent, MemoryStore(store.engine, actor=store.actor), session_id=session.id)
        try:  # claims the session now
            events = run_in_session(
                store, session.id, agent, args.question, cancel=cancel, attachments=args.attachments
            )
        except AttachmentError as exc:
            raise CliError(str(exc)) from None
        if interrupted is not None:
            print(
                f"note: the last run of this session was interrupted; `sessions resume {session.id}` continues it",
                file=sys.stderr,
                flush=True,
            )
    live = partial(
        live_export, session_id=session.id, include_content=args.include_content, started_by=store.actor.label
    )
    return lambda: live(events)
