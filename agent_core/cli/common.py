"""What every command group shares: exit codes and errors, the model/approval/database options, the store, the agent."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator

from sqlalchemy.exc import SQLAlchemyError

from agent_core import models
from agent_core.cli.exit_codes import EXIT_CANCELLED as EXIT_CANCELLED  # re-exported: the groups import them from here
from agent_core.cli.exit_codes import EXIT_OK as EXIT_OK
from agent_core.cli.exit_codes import EXIT_RUN_FAILED, EXIT_USAGE, CliError
from agent_core.cli.mcp_option import mcp_source
from agent_core.engine.agent import Agent, AgentSettings
from agent_core.engine.approval_policy import app_defaults
from agent_core.engine.approvals import Approvals
from agent_core.guards.safe_write import OutputRefused
from agent_core.longterm.memory_guard import MemoryRefused
from agent_core.longterm.memory_store import MemoryNotFound
from agent_core.models.local_llama import local_chat_model
from agent_core.models.model_errors import ModelError
from agent_core.runtime.catalog import tool_catalog
from agent_core.runtime.env_settings import env_settings
from agent_core.runtime.session_runs import NothingToResume, protocol_from_config, settings_from_config
from agent_core.store import (
    LOCAL_ADMIN,
    Actor,
    ReadOnly,
    SchemaVersionError,
    SessionConfig,
    SessionFileError,
    SessionNotFound,
    SessionStore,
    SnapshotNotFound,
)
from agent_core.store.actors import admins, signed_in
from agent_core.store.outage import problem as database_problem
from agent_core.store.run_owners import SessionBusy
from agent_core.tools import Tool


def add_approval_option(parser: argparse.ArgumentParser) -> None:
    """--yes: approve every tool call that needs approval, instead of asking on the terminal."""
    parser.add_argument(
        "--yes", "-y", action="store_true", help="approve tools that need approval (e.g. fetch_url) without asking"
    )
    parser.add_argument(
        "--trust", metavar="TOOLS", help="comma-separated tools that may run without asking (e.g. remember,web_search)"
    )


def add_content_option(parser: argparse.ArgumentParser) -> None:
    """--include-content: live-exported spans carry prompts, replies and tool I/O (see OTEL_EXPORTER_OTLP_ENDPOINT)."""
    parser.add_argument(
        "--include-content",
        action="store_true",
        default=None,
        help="with OTEL_EXPORTER_OTLP_ENDPOINT set, put prompts, replies and tool I/O on the spans sent live",
    )


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """--model, --base-url, --api-key, --no-stream, --timeout (environment variables are the defaults)."""
    parser.add_argument("--model", help="model name (default: $SPARROW_MODEL or gpt-4o-mini)")
    parser.add_argument("--base-url", help="OpenAI-compatible base URL (default: $OPENAI_BASE_URL)")
    parser.add_argument("--api-key", help="API key (default: $OPENAI_API_KEY; prefer the variable)")
    parser.add_argument("--no-stream", action="store_true", help="ask for whole replies instead of streaming")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per model request")
    parser.add_argument(
        "--provider",
        choices=("local",),
        help="local: the built-in small model (SmolLM2-135M, a tiny model for trying the loop offline), started "
        "on a free local port and stopped at exit; install it once with `python -m agent_core local install`",
    )


def local_model(args: argparse.Namespace) -> models.OpenAIChatModel:
    """The built-in small model, its server started now (it stops when the command exits)."""
    try:
        return local_chat_model(timeout=args.timeout, streaming=not args.no_stream)
    except ModelError as exc:
        raise CliError(str(exc)) from None


def model_from_args(args: argparse.Namespace, default_model: str | None = None) -> models.OpenAIChatModel:
    """An OpenAIChatModel from CLI options and the environment (then ``default_model``, e.g. a session's)."""
    if getattr(args, "provider", None) == "local":
        return local_model(args)
    try:
        return models.OpenAIChatModel(  # the openai client is imported here, by the commands that call a model
            args.model or env_settings().sparrow_model or default_model or None,
            api_key=args.api_key,
            base_url=args.base_url,
            timeout=args.timeout,
            streaming=not args.no_stream,
        )
    except ModelError as exc:
        raise CliError(str(exc)) from None


def select_tools(names: str | None, *, memory: bool = True, mcp: str | os.PathLike[str] | bool = True) -> list[Tool]:
    """Every catalogued tool (built-in, web, plugins, memory, MCP), or those named in a comma-separated list."""
    catalog = tool_catalog(memory=memory, mcp=mcp)
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
    names = ("max_steps", "time_limit", "tool_timeout", "temperature", "max_tokens", "repeat_policy")
    overrides = {n: getattr(args, n) for n in names if getattr(args, n, None) is not None}
    if getattr(args, "yes", False):
        overrides["require_approval"] = False
    trusted = {name.strip(): False for name in (getattr(args, "trust", None) or "").split(",") if name.strip()}
    overrides["tool_approval"] = {**app_defaults(), **settings.tool_approval, **trusted}
    protocol = getattr(args, "protocol", None) or (protocol_from_config(config) if config else "react")
    try:
        model = model_from_args(args, config.model if config else None)
        # Long-term memory belongs to sessions: a run that is not recorded gets no remember/recall.
        memory = not getattr(args, "no_save", False)
        tools = select_tools(getattr(args, "tools", None), memory=memory, mcp=mcp_source(args))
        return Agent(model, tools, protocol=protocol, settings=settings, approvals=approvals_of(args), **overrides)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def approvals_of(args: argparse.Namespace) -> Approvals:
    """The mailbox for this command's approval decisions (one per command line)."""
    if not isinstance(getattr(args, "approvals", None), Approvals):
        args.approvals = Approvals()
    return args.approvals


def add_db_option(parser: argparse.ArgumentParser) -> None:
    """``--db URL``: the database (default ``$DATABASE_URL``, else ``$SPARROW_DATA_DIR/sparrow.db``); ``--user``."""
    parser.add_argument(
        "--db", metavar="URL", help="SQLAlchemy database URL (default: $DATABASE_URL or $SPARROW_DATA_DIR/sparrow.db)"
    )
    parser.add_argument(
        "--user",
        metavar="SUBJECT",
        help="act as this user (their owner key: ISSUER#SUBJECT for a web user): see and change only their sessions "
        "and memories "
        "(an admin if listed in $SPARROW_ADMINS); without it, act as the admin of this machine",
    )


def actor_of(args: argparse.Namespace) -> Actor:
    """``--user SUBJECT`` as a user (an admin if listed in ``$SPARROW_ADMINS``), else the local admin."""
    subject = getattr(args, "user", None)
    if subject is None:
        return LOCAL_ADMIN
    try:
        return signed_in(subject, None, admins())
    except ValueError as exc:
        raise CliError(f"--user: {exc}") from None


def subcommand(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    help_text: str,
    handler: Callable[[argparse.Namespace], int],
) -> argparse.ArgumentParser:
    """A subcommand that works on the store (``--db``) and runs ``handler``."""
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help_text)
    add_db_option(parser)
    parser.set_defaults(handler=handler)
    return parser


@contextlib.contextmanager
def store_errors() -> Iterator[None]:
    """Turn store failures into one-line CLI errors (unknown ids are usage errors)."""
    try:
        yield
    except (
        SessionNotFound,
        SnapshotNotFound,
        NothingToResume,
        MemoryNotFound,
        MemoryRefused,
        SessionBusy,
        ReadOnly,
    ) as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except (SessionFileError, SchemaVersionError) as exc:
        raise CliError(str(exc), EXIT_RUN_FAILED) from None
    except SQLAlchemyError as exc:
        raise CliError(f"database error: {database_problem(exc)}", EXIT_RUN_FAILED) from None
    except OutputRefused as exc:
        raise CliError(str(exc), EXIT_RUN_FAILED) from None
    except OSError as exc:
        where = f": {exc.filename}" if exc.filename else ""
        raise CliError(f"{exc.strerror or exc}{where}", EXIT_RUN_FAILED) from None


def open_store(args: argparse.Namespace) -> SessionStore:
    """The store for ``--db`` (or the default); the API key in use is redacted should it ever turn up."""
    secrets = [getattr(args, "api_key", None), env_settings().openai_api_key]
    with store_errors():
        return SessionStore.open(args.db, secrets=secrets).acting_as(actor_of(args))
