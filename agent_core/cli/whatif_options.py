"""``python -m agent_core sessions fork|diff|resample``: the what-if subcommands' options (their work: ``whatif_cmd``).

Registering them imports neither the engine nor the store's runs: the handlers are loaded when one of them runs.
"""

from __future__ import annotations

import argparse

from agent_core.cli.common import add_approval_option, add_model_options, subcommand
from agent_core.lazy_exports import deferred

WHATIF = "agent_core.cli.whatif_cmd"
PROTOCOL_NAMES = ("react", "tools", "json")
"""The names of ``engine.protocols.PROTOCOLS`` (a test holds them equal): listing them imports no engine."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``fork``, ``diff`` and ``resample`` to the ``sessions`` command."""
    _register_fork(sub)
    diff = subcommand(
        sub,
        "diff",
        "compare two runs step by step (a fork against its original by default)",
        deferred(WHATIF, "cmd_diff"),
    )
    diff.add_argument("a", help="session id, or SESSION:RUN")
    diff.add_argument("b", help="session id, or SESSION:RUN")
    diff.add_argument("--json", action="store_true", help="print the comparison as JSON")
    resample = subcommand(
        sub,
        "resample",
        "ask the model K times again at a step; shows what it would do",
        deferred(WHATIF, "cmd_resample"),
    )
    _run_options(resample)
    resample.add_argument("-k", type=int, default=5, help="samples per model (default 5)")
    resample.add_argument("--temperature", type=float, help="sampling temperature (default: the run's)")
    resample.add_argument("--models", help="comma-separated models to sample each (default: --model)")
    add_model_options(resample)
    resample.add_argument("--json", action="store_true", help="print the samples as JSON lines")


def _register_fork(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    fork = subcommand(
        sub,
        "fork",
        "fork a run at a step with an edit and continue it; prints the new session id",
        deferred(WHATIF, "cmd_fork"),
    )
    _run_options(fork)
    edit = fork.add_mutually_exclusive_group()
    edit.add_argument("--observation", metavar="TEXT", help="what the tool returned at that step, instead")
    edit.add_argument("--action", metavar="TOOL", help="the tool to call at that step instead (with --action-input)")
    edit.add_argument("--answer", metavar="TEXT", help="a final answer at that step instead")
    edit.add_argument("--thought", metavar="TEXT", help="the step's thought, instead (its action is kept)")
    fork.add_argument("--action-input", metavar="JSON", default="{}", help="the arguments of --action, a JSON object")
    fork.add_argument("--call-id", help="which call of a step with parallel calls the edit is about")
    fork.add_argument("--protocol", choices=PROTOCOL_NAMES, help="protocol from the fork on (default: the run's)")
    fork.add_argument("--temperature", type=float, help="sampling temperature from the fork on")
    fork.add_argument("--max-steps", type=int, help="steps allowed in the branch, copied ones included")
    fork.add_argument("--instructions", metavar="LINE", help="an extra line for the system prompt from the fork on")
    fork.add_argument("--tools", help="comma-separated tools the branch may use (default: all)")
    fork.add_argument("--no-reuse", action="store_true", help="call every tool again instead of reusing results")
    fork.add_argument("--no-reuse-tool", action="append", default=[], metavar="TOOL", help="call this tool again")
    add_model_options(fork)
    add_approval_option(fork)
    fork.add_argument("--json", action="store_true", help="print {session, run, status, final_answer} as JSON")


def _run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", help="session id")
    parser.add_argument("--run", help="run id (default: the session's last run)")
    parser.add_argument("--at-step", type=int, required=True, metavar="N", help="the step")
