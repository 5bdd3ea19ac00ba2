"""``python -m agent_core eval``: datasets (import, list, export), experiments (run, resume, list, show, compare).

Exit codes: 0 when ``eval run`` met ``--min-pass-rate`` with no regression against ``--baseline``, 1 when not,
2 for a usage or configuration problem (a bad dataset file, an unknown dataset, a bad ``--config``).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from agent_core.cli.common import EXIT_OK, CliError, open_store, subcommand
from agent_core.cli.eval_run import add_run_options, cmd_resume, cmd_run, eval_errors
from agent_core.experiments import (
    ExperimentNotFound,
    dataset_items,
    get_dataset,
    get_experiment,
    import_dataset,
    list_datasets,
    read_dataset_file,
    to_jsonl,
)
from agent_core.experiments.records import ExperimentInfo, list_experiments
from agent_core.experiments.report import changes_text, experiment_html, judge_text, summary_table, table, to_json
from agent_core.experiments.results import Change, ConfigSummary, UnitResult, changes, config_summaries, unit_results
from agent_core.formatting import format_timestamp
from agent_core.store import SessionStore
from agent_core.views import LANGS


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``eval`` command group."""
    group = subparsers.add_parser("eval", help="datasets and experiments: run a dataset through the agent, score it")
    sub = group.add_subparsers(dest="eval_command", required=True)
    datasets = sub.add_parser("datasets", help="import, list and export datasets").add_subparsers(
        dest="datasets_command", required=True
    )
    imported = subcommand(datasets, "import", "import a JSONL, CSV or YAML dataset file; prints its id", cmd_import)
    imported.add_argument("file")
    imported.add_argument("--name", help="the dataset's name (default: the file's own, else its file name)")
    subcommand(datasets, "list", "list datasets", cmd_datasets)
    exported = subcommand(datasets, "export", "write a dataset as JSONL", cmd_export)
    exported.add_argument("dataset", help="dataset id or name (its newest version)")
    exported.add_argument("-o", "--output", help="file to write (default: stdout)")
    add_run_options(subcommand(sub, "run", "run a dataset through one or more configurations", cmd_run))
    resumed = subcommand(sub, "resume", "run the items an interrupted experiment has not finished", cmd_resume)
    resumed.add_argument("experiment")
    resumed.add_argument("--json", action="store_true", help="print the results as JSON on stdout")
    subcommand(sub, "list", "list experiments", cmd_list)
    shown = subcommand(sub, "show", "one experiment's results per configuration", cmd_show)
    shown.add_argument("experiment")
    shown.add_argument("--json", action="store_true", help="the whole experiment as JSON (every item)")
    shown.add_argument("--html", metavar="FILE", help="also write a self-contained HTML report of it to FILE")
    shown.add_argument("--lang", choices=LANGS, default="en", help="--html: the report's language")
    compared = subcommand(sub, "compare", "regressions and fixes of experiment B against experiment A", cmd_compare)
    compared.add_argument("a", help="the baseline experiment")
    compared.add_argument("b", help="the experiment compared with it")


def cmd_import(args: argparse.Namespace) -> int:
    """Import a dataset file; print the new dataset's id on stdout (its name and version on stderr)."""
    store = open_store(args)
    with eval_errors():
        info = import_dataset(store, read_dataset_file(args.file), args.name)
    print(f"imported {info.label}", file=sys.stderr)
    print(info.id)
    return EXIT_OK


def cmd_datasets(args: argparse.Namespace) -> int:
    """List datasets, newest first."""
    store = open_store(args)
    with eval_errors():
        rows = [
            (d.id, d.name, f"v{d.version}", str(d.item_count), format_timestamp(d.created_at))
            for d in list_datasets(store)
        ]
    print(table(("id", "name", "version", "items", "created"), rows) if rows else "no datasets")
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    """Write a dataset's items as JSONL."""
    store = open_store(args)
    with eval_errors():
        text = to_jsonl(dataset_items(store, get_dataset(store, args.dataset).id))
        if args.output:
            Path(args.output).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    """List experiments, newest first."""
    store = open_store(args)
    with eval_errors():
        rows = [
            (e.id, e.name, e.status, str(len(e.configs)), format_timestamp(e.created_at))
            for e in list_experiments(store)
        ]
    print(table(("id", "name", "status", "configs", "created"), rows) if rows else "no experiments")
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    """One experiment: per-configuration figures (``--json``: everything), and its changes against its baseline."""
    store = open_store(args)
    with eval_errors():
        print(show_text(store, args.experiment, as_json=args.json))
        if args.html:
            try:
                report = experiment_html(*gathered(store, args.experiment), lang=args.lang)
                Path(args.html).write_text(report, encoding="utf-8")
            except OSError as exc:
                raise CliError(f"cannot write {args.html}: {exc.strerror or exc}") from None
            print(f"wrote {args.html}", file=sys.stderr)
    return EXIT_OK


def gathered(
    store: SessionStore, experiment_id: str
) -> tuple[ExperimentInfo, list[ConfigSummary], list[UnitResult], list[Change]]:
    """An experiment, its per-configuration figures, its units and its changes against its baseline (if any)."""
    info = get_experiment(store, experiment_id)
    units = unit_results(store, info.id)
    summaries = config_summaries(store, info, units)
    found: list[Change] = []
    if info.baseline_id is not None:
        with contextlib.suppress(ExperimentNotFound):
            baseline = get_experiment(store, info.baseline_id)
            found = changes(baseline, unit_results(store, baseline.id), info, units)
    return info, summaries, units, found


def show_text(store: SessionStore, experiment_id: str, *, as_json: bool) -> str:
    """What ``eval show`` prints."""
    info, summaries, units, found = gathered(store, experiment_id)
    if as_json:
        return to_json(info, summaries, units, found)
    head = f"{info.name} ({info.id}) · {info.status} · dataset {info.dataset_id} · {info.repeats} repeat(s)"
    parts = [head, summary_table(summaries)]
    if (judged := judge_text(info)) is not None:
        parts.insert(1, judged)
    if info.baseline_id is not None:
        parts.append(f"against {info.baseline_id}:\n{changes_text(found)}")
    return "\n\n".join(parts)


def cmd_compare(args: argparse.Namespace) -> int:
    """Regressions and fixes of B against A (exit 1 when B has a regression)."""
    store = open_store(args)
    with eval_errors():
        a, b = get_experiment(store, args.a), get_experiment(store, args.b)
        found = changes(a, unit_results(store, a.id), b, unit_results(store, b.id))
    print(changes_text(found))
    return 1 if any(c.kind == "regression" for c in found) else EXIT_OK
