"""``python -m agent_core sessions fork | diff | resample``: what if a step had gone otherwise."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from typing import Any

from agent_core.cli.agent_options import agent_from_args, approvals_of, model_from_args, select_tools
from agent_core.cli.common import (
    EXIT_OK,
    CliError,
    open_store,
    store_errors,
)
from agent_core.cli.terminal import report, with_sigint
from agent_core.engine.state import RunState
from agent_core.events import Event, RunFinished
from agent_core.guards.limits import CancelToken
from agent_core.longterm.memory import MemoryStore
from agent_core.longterm.tools import connect_memory
from agent_core.runtime.branches import outcome, resample_step, spread
from agent_core.runtime.fork import StepEdit, fork_run
from agent_core.store import SessionStore
from agent_core.views.compare import Comparison, compare_turns
from agent_core.views.metrics import turn_metrics
from agent_core.views.transcript import Transcript


def cmd_fork(args: argparse.Namespace) -> int:
    """Fork the run, run the branch to its end (recorded in a new session), print the new session's id."""
    store = open_store(args)
    with store_errors():
        session = store.sessions.get(args.id)
        run_id = args.run or _last_run(store, args.id)
        agent = agent_from_args(args, session.config)
        agent.instructions = args.instructions or agent.instructions
        connect_memory(agent, MemoryStore(store.engine, actor=store.actor), session_id=None)
        cancel = CancelToken()
        try:
            fork, events = fork_run(
                store,
                args.id,
                run_id,
                args.at_step,
                agent,
                edit=_edit(args),
                reuse=not args.no_reuse,
                no_reuse_tools=args.no_reuse_tool,
                cancel=cancel,
            )
        except (KeyError, ValueError) as exc:
            raise CliError(str(exc).strip("'\"")) from None
    return _run_fork(fork.id, events, cancel, args)


def _run_fork(fork_id: str, events: Iterator[Event], cancel: CancelToken, args: argparse.Namespace) -> int:
    """Run the branch with its trace on stderr; stdout gets the new session's id (or a JSON summary)."""
    last: list[Event] = []

    def kept() -> Iterator[Event]:
        for event in events:
            last[:] = [event]
            yield event

    with contextlib.redirect_stdout(sys.stderr):
        code = report(with_sigint(cancel, kept), as_json=False, approvals=approvals_of(args))
    end = last[0] if last and isinstance(last[0], RunFinished) else None
    if args.json:
        summary = {
            "session": fork_id,
            "run": end.run_id if end else None,
            "status": end.status if end else None,
            "final_answer": end.final_answer if end else None,
        }
        print(json.dumps(summary, ensure_ascii=False))
    else:
        print(fork_id)
    return code


def _edit(args: argparse.Namespace) -> StepEdit:
    if args.observation is not None:
        return StepEdit("observation", text=args.observation, call_id=args.call_id)
    if args.answer is not None:
        return StepEdit("answer", text=args.answer)
    if args.thought is not None:
        return StepEdit("thought", text=args.thought)
    if args.action is not None:
        try:
            arguments = json.loads(args.action_input)
        except json.JSONDecodeError as exc:
            raise CliError(f"--action-input is not valid JSON: {exc.msg} at position {exc.pos}") from None
        if not isinstance(arguments, dict):
            raise CliError('--action-input must be a JSON object, like {"city": "Paris"}')
        return StepEdit("action", tool=args.action, arguments=arguments, call_id=args.call_id)
    return StepEdit()


def _last_run(store: SessionStore, session_id: str) -> str:
    turn = Transcript.from_events(store.log.events(session_id)).run()
    if turn is None:
        raise CliError(f"session {session_id} has no run")
    return turn.run_id


def cmd_diff(args: argparse.Namespace) -> int:
    """Print the step-aligned comparison of two runs (text, or JSON with --json)."""
    store = open_store(args)
    with store_errors():
        left, right = diff_sides(store, args.a, args.b)
        comparison = compare_turns(left, right, turn_metrics(left), turn_metrics(right))
    if args.json:
        print(json.dumps(comparison_json(comparison), ensure_ascii=False, indent=2))
    else:
        sys.stdout.write("".join(line + "\n" for line in comparison_lines(comparison)))
    return EXIT_OK


def diff_sides(store: SessionStore, a: str, b: str) -> tuple[RunState, RunState]:
    """The two runs named: ``SESSION:RUN``, or a session's last run; a fork's original run when A is its source."""
    right = _turn(store, *b.partition(":")[::2])
    session_a, _, run_a = a.partition(":")
    if not run_a and right.forked is not None and right.forked.from_session == session_a:
        run_a = right.forked.from_run
    return _turn(store, session_a, run_a), right


def _turn(store: SessionStore, session_id: str, run_id: str) -> RunState:
    transcript = Transcript.from_events(store.log.events(session_id))
    turn = transcript.turn(run_id) if run_id else (transcript.turns[-1] if transcript.turns else None)
    if turn is None:
        raise CliError(f"session {session_id} has no run {run_id}" if run_id else f"session {session_id} has no run")
    return turn


def comparison_lines(comparison: Comparison) -> list[str]:
    """The comparison as lines of text: the summary, then one line per aligned step and one per changed field."""
    lines = [f"{comparison.left.run_id} → {comparison.right.run_id}: {comparison.summary()}"]
    first = comparison.first_divergence
    for index, pair in enumerate(comparison.steps):
        left = pair.left.number if pair.left else "-"
        right = pair.right.number if pair.right else "-"
        mark = "  ← first divergence" if index == first else ""
        lines.append(f"{pair.status:8} step {left} / {right}{mark}")
        for diff in pair.fields:
            if diff.differs:
                lines.append(f"    {diff.name}: {json.dumps(diff.left, ensure_ascii=False)[:200]}")
                lines.append(f"    {' ' * len(diff.name)}→ {json.dumps(diff.right, ensure_ascii=False)[:200]}")
        for action in pair.right.actions if pair.right else ():
            if action.finished is not None and action.finished.reused_from:
                lines.append(f"    {action.tool}: reused, recorded at step {action.finished.reused_from.get('step')}")
    return lines


def comparison_json(comparison: Comparison) -> dict[str, Any]:
    """The comparison as plain JSON: runs, summary, metrics, and the aligned steps with their fields."""
    return {
        "left": comparison.left.run_id,
        "right": comparison.right.run_id,
        "summary": comparison.summary(),
        "first_divergence": comparison.first_divergence,
        "metrics": [{"name": r.name, "left": r.left, "right": r.right, "delta": r.delta} for r in comparison.metrics],
        "steps": [
            {
                "status": pair.status,
                "left_step": pair.left.number if pair.left else None,
                "right_step": pair.right.number if pair.right else None,
                "fields": {f.name: {"left": f.left, "right": f.right} for f in pair.fields if f.differs},
                "reused": [
                    a.finished.reused_from
                    for a in (pair.right.actions if pair.right else ())
                    if a.finished is not None and a.finished.reused_from
                ],
            }
            for pair in comparison.steps
        ],
    }


def cmd_resample(args: argparse.Namespace) -> int:
    """Sample the step K times (per model), record the samples, print how they spread."""
    store = open_store(args)
    with store_errors():
        session = store.sessions.get(args.id)
        run_id = args.run or _last_run(store, args.id)
        names = [m.strip() for m in (args.models or "").split(",") if m.strip()] or [None]
        models = [
            model_from_args(argparse.Namespace(**{**vars(args), "model": n}), session.config.model) for n in names
        ]
        kwargs: dict[str, Any] = {} if args.temperature is None else {"temperature": args.temperature}
        try:
            samples = resample_step(
                store, args.id, run_id, args.at_step, models, args.k, tools=select_tools(None), **kwargs
            )
        except (KeyError, ValueError) as exc:
            raise CliError(str(exc).strip("'\"")) from None
    if args.json:
        for sample in samples:
            print(json.dumps(sample.to_dict(), ensure_ascii=False))
        return EXIT_OK
    for label, count in spread(samples):
        print(f"{count:3} × {label}")
    for sample in samples:
        print(f"  #{sample.index} {sample.model}: {outcome(sample)}", file=sys.stderr)
    return EXIT_OK
