"""Command line: ``python -m agent_core ask "QUESTION"`` and friends."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Callable, Iterator

from agent_core.agent import Agent, AgentSettings
from agent_core.approval_policy import app_defaults, asks_first
from agent_core.approvals import Approvals, approval_key
from agent_core.console import TracePrinter
from agent_core.events import ApprovalRequested, Event, RunFinished
from agent_core.limits import CancelToken
from agent_core.models import ModelError, OpenAIChatModel
from agent_core.output_check import HidingWriter, hide_configured
from agent_core.protocols import PROTOCOLS
from agent_core.sessions import protocol_from_config, settings_from_config
from agent_core.store import SessionConfig
from agent_core.tools import Tool
from agent_core.tools.catalog import tool_catalog

EXIT_OK, EXIT_RUN_FAILED, EXIT_USAGE, EXIT_CANCELLED = 0, 1, 2, 130


class CliError(Exception):
    """A failure reported as one line on stderr, with an exit code."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    from agent_core.cli import memory as cli_memory, sessions as cli_sessions  # noqa: I001 (split by the cli package refactor)

    parser = argparse.ArgumentParser(prog="python -m agent_core", description="Sparrow: a transparent ReAct agent.")
    sub = parser.add_subparsers(dest="command", required=True)
    ask = sub.add_parser("ask", help="answer a question, printing the live trace to stderr")
    ask.add_argument("question")
    add_model_options(ask)
    ask.add_argument("--protocol", choices=sorted(PROTOCOLS), help="ReAct text or native tools (default: react)")
    ask.add_argument("--max-steps", type=int, help="default 10")
    ask.add_argument("--time-limit", type=float, help="seconds per run (default 300)")
    ask.add_argument("--tool-timeout", type=float, help="seconds per tool call (default 30)")
    ask.add_argument("--temperature", type=float, help="default 0")
    ask.add_argument("--max-tokens", type=int, help="most tokens per model reply (default 4096)")
    ask.add_argument("--tools", help="comma-separated tool names to enable (default: all)")
    ask.add_argument("--json", action="store_true", help="print one JSON event per line on stdout")
    add_approval_option(ask)
    saving = ask.add_mutually_exclusive_group()
    saving.add_argument(
        "--session", metavar="ID", help="continue this session (its protocol and settings are defaults)"
    )
    saving.add_argument("--no-save", action="store_true", help="do not record the run in a session")
    cli_sessions.add_db_option(ask)
    ask.set_defaults(handler=cmd_ask)
    tools = sub.add_parser("tools", help="list the available tools and their parameter schemas")
    tools.set_defaults(handler=cmd_tools)
    cli_sessions.register(sub)
    cli_memory.register(sub)
    return parser


def add_approval_option(parser: argparse.ArgumentParser) -> None:
    """--yes: approve every tool call that needs approval, instead of asking on the terminal."""
    parser.add_argument(
        "--yes", "-y", action="store_true", help="approve tools that need approval (e.g. fetch_url) without asking"
    )
    parser.add_argument(
        "--trust", metavar="TOOLS", help="comma-separated tools that may run without asking (e.g. remember,web_search)"
    )


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """--model, --base-url, --api-key, --no-stream, --timeout (environment variables are the defaults)."""
    parser.add_argument("--model", help="model name (default: $SPARROW_MODEL or gpt-4o-mini)")
    parser.add_argument("--base-url", help="OpenAI-compatible base URL (default: $OPENAI_BASE_URL)")
    parser.add_argument("--api-key", help="API key (default: $OPENAI_API_KEY; prefer the variable)")
    parser.add_argument("--no-stream", action="store_true", help="ask for whole replies instead of streaming")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per model request")


def model_from_args(args: argparse.Namespace, default_model: str | None = None) -> OpenAIChatModel:
    """An OpenAIChatModel from CLI options and the environment (then ``default_model``, e.g. a session's)."""
    try:
        return OpenAIChatModel(
            args.model or os.environ.get("SPARROW_MODEL") or default_model or None,
            api_key=args.api_key,
            base_url=args.base_url,
            timeout=args.timeout,
            streaming=not args.no_stream,
        )
    except ModelError as exc:
        raise CliError(str(exc)) from None


def select_tools(names: str | None, *, memory: bool = True) -> list[Tool]:
    """Every catalogued tool (built-in, web, plugins, memory), or those named in a comma-separated list."""
    catalog = tool_catalog(memory=memory)
    for problem in catalog.errors:
        print(f"sparrow: warning: {problem}", file=sys.stderr)
    if not names:
        return list(catalog.tools)
    try:
        return catalog.get([n.strip() for n in names.split(",") if n.strip()])
    except ValueError as exc:
        raise CliError(str(exc)) from None


def agent_from_args(args: argparse.Namespace, config: SessionConfig | None = None) -> Agent:
    """An Agent from CLI options; a session's configuration, if given, fills in the options left out."""
    settings = settings_from_config(config.settings) if config else AgentSettings()
    names = ("max_steps", "time_limit", "tool_timeout", "temperature", "max_tokens")
    overrides = {n: getattr(args, n) for n in names if getattr(args, n, None) is not None}
    if getattr(args, "yes", False):
        overrides["require_approval"] = False
    trusted = {name.strip(): False for name in (getattr(args, "trust", None) or "").split(",") if name.strip()}
    overrides["tool_approval"] = {**app_defaults(), **settings.tool_approval, **trusted}
    protocol = getattr(args, "protocol", None) or (protocol_from_config(config) if config else "react")
    try:
        model = model_from_args(args, config.model if config else None)
        # Long-term memory belongs to sessions: a run that is not recorded gets no remember/recall.
        tools = select_tools(getattr(args, "tools", None), memory=not getattr(args, "no_save", False))
        return Agent(model, tools, protocol=protocol, settings=settings, approvals=approvals_of(args), **overrides)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def cmd_ask(args: argparse.Namespace) -> int:
    """Run one question and report it, recorded in a new session (or ``--session ID``) unless ``--no-save``."""
    from agent_core.cli import sessions as cli_sessions

    cancel = CancelToken()
    approvals = approvals_of(args)
    if args.no_save:
        agent = agent_from_args(args)
        run = with_sigint(cancel, lambda: agent.run(args.question, cancel=cancel))
        return report(run, as_json=args.json, approvals=approvals)
    run = with_sigint(cancel, cli_sessions.recorded_ask(args, cancel))
    return report(run, as_json=args.json, approvals=approvals)


def approvals_of(args: argparse.Namespace) -> Approvals:
    """The mailbox for this command's approval decisions (one per command line)."""
    if not isinstance(getattr(args, "approvals", None), Approvals):
        args.approvals = Approvals()
    return args.approvals


def ask_terminal(event: ApprovalRequested) -> bool:
    """Ask on the terminal whether a tool may run; a line from a pipe answers too, end of input denies."""
    arguments = json.dumps(event.arguments, ensure_ascii=False)
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
    printer = TracePrinter(HidingWriter(sys.stderr), color=sys.stderr.isatty())
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


def cmd_tools(args: argparse.Namespace) -> int:
    """Print each tool (built-in, web, plugins) with where it comes from and its JSON schema."""
    catalog = tool_catalog()
    for problem in catalog.errors:
        print(f"sparrow: warning: {problem}", file=sys.stderr)
    for t in catalog.tools:
        approval = ", asks for approval" if t.needs_approval else ""
        asks = (
            " (asks before each call: --yes or --trust to allow)"
            if asks_first(t, app_defaults()) and not approval
            else ""
        )
        print(f"{t.name} [{catalog.origins.get(t.name, '?')}{approval}]: {t.description}{asks}")
        print(json.dumps(t.parameters, indent=2, ensure_ascii=False))
    return EXIT_OK


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
