"""Running a command's events on the terminal: Ctrl-C as a clean cancel, the live trace, approvals, exit codes."""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import TextIO

from agent_core.cli.common import EXIT_CANCELLED, EXIT_OK, EXIT_RUN_FAILED, CliError
from agent_core.cli.trace_printer import TracePrinter
from agent_core.engine.approvals import Approvals, approval_key
from agent_core.env_settings import env_settings
from agent_core.events import ApprovalRequested, Event, RunFinished
from agent_core.guards.limits import CancelToken
from agent_core.guards.masking import HidingWriter, hide_configured


def use_color(stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """Colour only on a terminal, and never when ``NO_COLOR`` is set to anything non-empty (no-color.org)."""
    return not env_settings(environ).no_color and stream.isatty()


def ask_terminal(event: ApprovalRequested) -> bool:
    """Ask on the terminal whether a tool may run; a line from a pipe answers too, end of input denies."""
    arguments = json.dumps(event.arguments, ensure_ascii=False)
    if event.reason:
        print(f"! {event.reason}", file=sys.stderr, flush=True)
    print(f"? {event.tool} wants to run with {arguments}. Allow it? [y/N] ", end="", file=sys.stderr, flush=True)
    try:
        answer = sys.stdin.readline()
    except (OSError, ValueError):
        answer = ""
    if not answer:
        print("\n  no answer (end of input): denied. Use --yes to approve tool calls.", file=sys.stderr)
        return False
    return answer.strip().lower() in {"y", "yes"}


def with_sigint(cancel: CancelToken, start: Callable[[], Iterator[Event]]) -> Iterator[Event]:
    """Run ``start()`` with Ctrl-C turned into a clean cancel (the run ends with status ``cancelled``)."""
    previous = signal.getsignal(signal.SIGINT)
    try:
        signal.signal(signal.SIGINT, lambda *_: cancel.cancel())
    except ValueError:  # not the main thread
        previous = None
    try:
        yield from start()
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def report(events: Iterator[Event], *, as_json: bool, approvals: Approvals | None = None) -> int:
    """Print events (trace on stderr, answer on stdout, or JSON lines), ask for approvals, return the exit code."""
    printer = TracePrinter(HidingWriter(sys.stderr), color=use_color(sys.stderr))
    finished: RunFinished | None = None
    for event in events:
        if as_json:
            print(hide_configured(json.dumps(event.to_dict(), ensure_ascii=False)), flush=True)
        else:
            printer(event)
        if isinstance(event, ApprovalRequested) and approvals is not None:
            approvals.decide(approval_key(event.run_id, event.step, event.call_id), ask_terminal(event))
        if isinstance(event, RunFinished):
            finished = event
    if finished is None:
        raise CliError("the run ended without a run_finished event", EXIT_RUN_FAILED)
    if not as_json and finished.final_answer is not None:
        print(hide_configured(finished.final_answer), flush=True)
    if finished.status == "completed":
        return EXIT_OK
    return EXIT_CANCELLED if finished.status == "cancelled" else EXIT_RUN_FAILED
