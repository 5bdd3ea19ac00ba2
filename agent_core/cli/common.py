"""What every command group shares: exit codes and errors, the model/approval/database options, the store.

Building the agent from the options is ``agent_options``'s.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator

from sqlalchemy.exc import SQLAlchemyError

from agent_core.cli.exit_codes import EXIT_CANCELLED as EXIT_CANCELLED  # re-exported: the groups import them from here
from agent_core.cli.exit_codes import EXIT_OK as EXIT_OK
from agent_core.cli.exit_codes import EXIT_RUN_FAILED, EXIT_USAGE, CliError
from agent_core.env_settings import env_settings
from agent_core.guards.safe_write import OutputRefused
from agent_core.store import (
    LOCAL_ADMIN,
    Actor,
    ReadOnly,
    SchemaVersionError,
    SessionFileError,
    SessionNotFound,
    SessionStore,
    SnapshotNotFound,
)
from agent_core.store.access import admins, signed_in
from agent_core.store.database import problem as database_problem
from agent_core.store.runs import SessionBusy

USAGE_ERRORS = {
    "agent_core.runtime.sessions": "NothingToResume",
    "agent_core.longterm.memory": "MemoryNotFound",
    "agent_core.longterm.guard": "MemoryRefused",
}
"""More errors that are the user's to fix, by module: matched only if that module was loaded (an error of a module
not loaded cannot have been raised), so a command that only reads sessions never imports memory or runs."""


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
    except (SessionNotFound, SnapshotNotFound, SessionBusy, ReadOnly) as exc:
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
    except Exception as exc:
        if _loaded_usage_error(exc):
            raise CliError(str(exc), EXIT_USAGE) from None
        raise


def _loaded_usage_error(exc: Exception) -> bool:
    """True when ``exc`` is one of ``USAGE_ERRORS`` (of a module that was loaded)."""
    return any(
        (module := sys.modules.get(name)) is not None and isinstance(exc, getattr(module, error))
        for name, error in USAGE_ERRORS.items()
    )


def open_store(args: argparse.Namespace) -> SessionStore:
    """The store for ``--db`` (or the default); the API key in use is redacted should it ever turn up."""
    secrets = [getattr(args, "api_key", None), env_settings().openai_api_key]
    with store_errors():
        return SessionStore.open(args.db, secrets=secrets).acting_as(actor_of(args))
