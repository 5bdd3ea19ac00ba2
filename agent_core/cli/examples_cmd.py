"""``python -m agent_core sessions examples [NAME]``: list the shipped example sessions, or open one in the store."""

from __future__ import annotations

import argparse
import sys

from agent_core.cli.common import EXIT_OK, CliError, open_store, store_errors, subcommand
from agent_core.examples import EXAMPLES, example, example_name, open_example


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``examples`` under ``sessions``."""
    parser = subcommand(
        sub, "examples", "list the example sessions, or import one (NAME) and print its session id", cmd_examples
    )
    parser.add_argument("name", nargs="?", help="the example to import (see the list)")


def cmd_examples(args: argparse.Namespace) -> int:
    """Without NAME: each example with what it shows (and its session id once imported); with NAME: import it."""
    store = open_store(args)
    if args.name:
        try:
            example(args.name)
        except KeyError as exc:
            raise CliError(str(exc.args[0])) from None
        with store_errors():
            info = open_example(store, args.name)
        print(info.id)
        print(
            f"opened the example {args.name!r}: scripted runs that show Sparrow's views, not a live model's output",
            file=sys.stderr,
        )
        return EXIT_OK
    with store_errors():
        imported = {example_name(s): s.id for s in store.sessions.list() if example_name(s)}
    for item in EXAMPLES:
        where = f"session {imported[item.name]}" if item.name in imported else "not imported yet"
        print(f"{item.name:<10} {item.title}  ({where})\n           {item.summary}")
    print("\nimport one with: python -m agent_core sessions examples NAME", file=sys.stderr)
    return EXIT_OK
