"""``eval run`` and ``eval resume``: run an experiment with progress on stderr, a summary on stdout, an exit code.

Exit 0 when the experiment met ``--min-pass-rate`` (over every item, configuration and repeat) with no
regression against ``--baseline``; 1 when not (or when it was stopped); 2 for a usage or configuration problem.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from agent_core.cli.common import (
    EXIT_CANCELLED,
    EXIT_OK,
    EXIT_RUN_FAILED,
    EXIT_USAGE,
    CliError,
    open_store,
    store_errors,
)
from agent_core.cli.worker_cmd import wait_for_workers
from agent_core.engine.protocols import PROTOCOLS
from agent_core.env_settings import env_settings
from agent_core.experiments import (
    DatasetFileError,
    DatasetNotFound,
    ExperimentNotFound,
    ExperimentRunner,
    RunConfig,
    create_experiment,
    get_experiment,
)
from agent_core.experiments.configs import ConfigFileError, check_config, read_configs
from agent_core.experiments.records import ExperimentInfo
from agent_core.experiments.report import changes_text, summary_table, to_json, to_junit
from agent_core.experiments.results import Change, changes, config_summaries, unit_results
from agent_core.experiments.runner import QUEUE_NAME, Progress, QueueError, enqueue_experiment
from agent_core.experiments.scoring import load_scorers
from agent_core.guards.limits import CancelToken
from agent_core.models.openai_compat import DEFAULT_MODEL
from agent_core.store import SessionStore
from agent_core.store.database import database_url


@contextlib.contextmanager
def eval_errors() -> Iterator[None]:
    """Dataset, configuration and lookup problems as usage errors (exit 2); store failures as usual."""
    try:
        with store_errors():
            yield
    except (DatasetFileError, ConfigFileError, DatasetNotFound, ExperimentNotFound) as exc:
        raise CliError(str(exc), EXIT_USAGE) from None


def add_run_options(run: argparse.ArgumentParser) -> None:
    """The options of ``eval run``."""
    run.add_argument("dataset", help="dataset id or name (its newest version)")
    run.add_argument("--model", action="append", help="a model to run (repeat for several configurations)")
    run.add_argument("--base-url", help="OpenAI-compatible base URL for --model (default: $OPENAI_BASE_URL)")
    run.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        help="the variable holding --model's key (a *_KEY name; OPENAI_API_KEY goes only to OPENAI_BASE_URL)",
    )
    run.add_argument("--protocol", choices=sorted(PROTOCOLS), default="react", help="protocol for --model")
    run.add_argument("--temperature", type=float, default=0.0)
    run.add_argument("--max-steps", type=int, default=10)
    run.add_argument("--tools", help="comma-separated tools to enable (default: built-ins that need no approval)")
    run.add_argument("--system-prompt", help="instructions replacing the protocol's opening line")
    run.add_argument("--config", action="append", metavar="FILE.toml", help="configurations from a TOML file")
    run.add_argument("--name", help="the experiment's name (default: the dataset's)")
    run.add_argument("--concurrency", type=int, default=4, help="items run at once (default 4)")
    run.add_argument("--repeats", type=int, default=1, help="samples per item and configuration (default 1)")
    run.add_argument("--baseline", metavar="EXPERIMENT", help="fail (exit 1) on any regression against it")
    run.add_argument("--min-pass-rate", type=float, help="fail (exit 1) below this pass rate (0..1)")
    run.add_argument("--judge-model", help="the model that grades 'judge' checks (same endpoint as --base-url)")
    run.add_argument("--junit", metavar="FILE", help="write JUnit XML results here")
    run.add_argument("--json", action="store_true", help="print the results as JSON on stdout")
    run.add_argument("--queue", action="store_true", help="hand the items to `worker` processes (PostgreSQL)")


def configs_of(args: argparse.Namespace) -> list[RunConfig]:
    """The configurations named by ``--config`` files and ``--model`` options (default: $SPARROW_MODEL)."""
    configs: list[RunConfig] = []
    try:
        for path in args.config or []:
            configs.extend(read_configs(path))
        tools = tuple(t.strip() for t in args.tools.split(",") if t.strip()) if args.tools else None
        models = args.model or ([] if configs else [env_settings().sparrow_model or DEFAULT_MODEL])
        for model in models:
            configs.append(
                RunConfig(
                    model=model,
                    base_url=args.base_url,
                    protocol=args.protocol,
                    temperature=args.temperature,
                    max_steps=args.max_steps,
                    tools=tools,
                    system_prompt=args.system_prompt,
                    api_key_env=args.api_key_env,
                )
            )
        for config in configs:
            check_config(config)  # the key's variable and the base URL, before anything is stored
    except (ConfigFileError, ValueError) as exc:
        raise CliError(str(exc).splitlines()[0] if not isinstance(exc, ConfigFileError) else str(exc)) from None
    return configs


def judge_of(args: argparse.Namespace) -> RunConfig | None:
    """The judge ``--judge-model`` names, on the ``--base-url`` endpoint (None: $SPARROW_JUDGE_MODEL at run time)."""
    if not args.judge_model:
        return None
    try:
        judge = RunConfig(name="judge", model=args.judge_model, base_url=args.base_url, api_key_env=args.api_key_env)
        check_config(judge)
        return judge
    except ValueError as exc:
        raise CliError(f"--judge-model: {str(exc).splitlines()[0]}") from None


def cmd_run(args: argparse.Namespace) -> int:
    """Make the experiment, run it, report it."""
    if args.min_pass_rate is not None and not 0 <= args.min_pass_rate <= 1:
        raise CliError("--min-pass-rate is a fraction between 0 and 1 (e.g. 0.8)")
    _check_scorers()
    store = open_store(args)
    with eval_errors():
        info = create_experiment(
            store,
            args.dataset,
            configs_of(args),
            name=args.name,
            repeats=args.repeats,
            concurrency=args.concurrency,
            baseline=args.baseline,
            queue=QUEUE_NAME if args.queue else None,
            judge=judge_of(args),
        )
        print(f"experiment: {info.id}", file=sys.stderr, flush=True)
        return run_and_report(store, info, args)


def cmd_resume(args: argparse.Namespace) -> int:
    """Run what an experiment has not finished, then report it."""
    _check_scorers()
    store = open_store(args)
    with eval_errors():
        info = get_experiment(store, args.experiment)
        return run_and_report(store, info, args)


def run_and_report(store: SessionStore, info: ExperimentInfo, args: argparse.Namespace) -> int:
    """Run the experiment's missing units with Ctrl-C as Stop (or hand them to workers); print the summary."""
    if info.queue:
        return _queued(store, info, args)
    cancel = CancelToken()
    printer = ProgressPrinter()
    previous = signal.signal(signal.SIGINT, lambda *_: cancel.cancel())
    try:
        ExperimentRunner(store, info.id, on_progress=printer, cancel=cancel).run()
    finally:
        signal.signal(signal.SIGINT, previous)
        printer.end()
    return report(store, get_experiment(store, info.id), args, stopped=cancel.cancelled)


def report(store: SessionStore, info: ExperimentInfo, args: argparse.Namespace, *, stopped: bool) -> int:
    """Print the results, write ``--junit``; 0 when the gates were met."""
    units = unit_results(store, info.id)
    summaries = config_summaries(store, info, units)
    found: list[Change] = []
    if info.baseline_id:
        baseline = get_experiment(store, info.baseline_id)
        found = changes(baseline, unit_results(store, baseline.id), info, units)
    if getattr(args, "junit", None):
        Path(args.junit).write_text(to_junit(info, units), encoding="utf-8")
    if args.json:
        print(to_json(info, summaries, units, found))
    else:
        print(summary_table(summaries))
        if info.baseline_id:
            print(f"\nagainst {info.baseline_id}:\n{changes_text(found)}")
    scored = sum(s.units for s in summaries)
    rate = sum(s.passed for s in summaries) / scored if scored else 0.0
    minimum = getattr(args, "min_pass_rate", None)
    if stopped:
        print(f"stopped: `eval resume {info.id}` runs the rest", file=sys.stderr)
        return EXIT_CANCELLED
    if minimum is not None and rate < minimum:
        print(f"pass rate {rate:.1%} is below --min-pass-rate {minimum:.1%}", file=sys.stderr)
        return EXIT_RUN_FAILED
    regressions = sum(1 for c in found if c.kind == "regression")
    if regressions:
        print(f"{regressions} regression(s) against the baseline {info.baseline_id}", file=sys.stderr)
        return EXIT_RUN_FAILED
    return EXIT_OK


def _queued(store: SessionStore, info: ExperimentInfo, args: argparse.Namespace) -> int:
    try:
        count = enqueue_experiment(store, database_url(args.db), info.id)
    except QueueError as exc:
        raise CliError(str(exc)) from None
    print(f"handed {count} unit(s) to the workers (`python -m agent_core worker`)", file=sys.stderr, flush=True)
    printer = ProgressPrinter()
    waited = wait_for_workers(store, info, printer)
    printer.end()
    return waited if waited != EXIT_OK else report(store, get_experiment(store, info.id), args, stopped=False)


def _check_scorers() -> None:
    for problem in load_scorers():
        raise CliError(problem)


class ProgressPrinter:
    """Progress on stderr: one line rewritten in place on a terminal, else a line every few seconds."""

    def __init__(self, every_s: float = 5.0) -> None:
        self.tty = sys.stderr.isatty()
        self.every_s = every_s
        self.last = 0.0
        self.shown: Progress | None = None

    def __call__(self, progress: Progress) -> None:
        """Show ``progress`` (rate-limited when not on a terminal)."""
        now = time.monotonic()
        if self.tty:
            print(f"\r{progress.line()}\033[K", end="", file=sys.stderr, flush=True)
        elif now - self.last >= self.every_s or (progress.done == progress.total != getattr(self.shown, "done", -1)):
            print(progress.line(), file=sys.stderr, flush=True)
            self.last = now
        self.shown = progress

    def end(self) -> None:
        """Finish the in-place line."""
        if self.tty and self.shown is not None:
            print(file=sys.stderr, flush=True)
