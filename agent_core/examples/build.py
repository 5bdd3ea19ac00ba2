"""Build the example session files: ``python -m agent_core.examples.build`` (``--check`` compares instead).

Each example is a real run of the agent loop: a ScriptedModel (``agent_core.testing``) gives the replies of
``scripts.py``, the real built-in tools run, every event is recorded in a session of an in-memory store,
and the session is exported as a session file. The model waits a little before each reply (``pace``) so the
timings look like a model's; ids, times and durations differ from one build to the next, and
``normalised`` leaves them out when comparing a build with the shipped files.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from agent_core.engine.agent import Agent
from agent_core.events import Event, RunFinished, ToolFinished
from agent_core.examples import EXAMPLE_KEY, EXAMPLES, Example
from agent_core.examples.example_scripts import SCRIPTS, Turn
from agent_core.runtime.session_runs import config_from_agent, run_in_session
from agent_core.store import SessionStore, export_session
from agent_core.testing import Reply, ScriptedModel
from agent_core.tools import builtin_tools

MODEL_NAME = "scripted-example"
"""The model name the examples record: a scripted fake, never a live model."""
VOLATILE_EVENT_KEYS = frozenset({"ts", "latency_ms", "ttft_ms", "duration_ms"})
"""Event fields measured during the build (they change from one build to the next)."""


class ExampleBuildError(RuntimeError):
    """A scripted run did not end as its script says (a tool's output changed, or the script is wrong)."""


def paced(item: str | Reply, pace: float) -> Reply:
    """The reply, arriving after a model-like wait (scaled by ``pace``; 0 for none)."""
    reply = item if isinstance(item, Reply) else Reply(text=item)
    words = len((reply.reasoning + " " + reply.text).split())
    return Reply(
        text=reply.text,
        tool_calls=reply.tool_calls,
        reasoning=reply.reasoning,
        delay=pace * (0.35 + 0.004 * words),
        chunk_delay=pace * 0.012,
    )


def build_example(item: Example, *, pace: float = 1.0) -> bytes:
    """The session file of one example, from a fresh run of its script."""
    turns: tuple[Turn, ...] = SCRIPTS[item.name]
    model = ScriptedModel([paced(r, pace) for turn in turns for r in turn.replies], name=MODEL_NAME)
    agent = Agent(model, builtin_tools(), protocol=item.protocol)
    store = SessionStore.open("sqlite://")
    try:
        session = store.sessions.create(title=item.title)
        for turn in turns:
            _check(item, turn, list(run_in_session(store, session.id, agent, turn.question)))
        model.assert_complete()
        config = config_from_agent(agent)
        store.sessions.update_config(
            session.id, config.model_copy(update={"settings": {**config.settings, EXAMPLE_KEY: item.name}})
        )
        return export_session(store, session.id)
    finally:
        store.close()


def _check(item: Example, turn: Turn, events: list[Event]) -> None:
    """Refuse a run that did not go as its script says."""
    last = events[-1]
    if not isinstance(last, RunFinished) or last.status != turn.status:
        raise ExampleBuildError(f"example {item.name!r}: {turn.question!r} ended as {last}")
    outputs = [e.output for e in events if isinstance(e, ToolFinished)]
    for expected, output in zip(turn.observed, outputs, strict=True):
        if expected not in output:
            raise ExampleBuildError(f"example {item.name!r}: expected {expected!r} in the observation {output!r}")


def normalised(data: bytes) -> dict[str, Any]:
    """A session file without what changes between builds: ids, times, measured durations."""
    document = json.loads(data)
    for key in ("id", "created_at", "updated_at"):
        document["session"].pop(key, None)
    runs: dict[str, str] = {}
    for event in document["events"]:
        for key in VOLATILE_EVENT_KEYS:
            event.pop(key, None)
        event["run_id"] = runs.setdefault(event["run_id"], f"run_{len(runs) + 1}")
    return document


def main(argv: list[str] | None = None) -> int:
    """Write every example file (or, with ``--check``, say which differ from a fresh build)."""
    assert __doc__ is not None  # the module's docstring is the command's description
    parser = argparse.ArgumentParser(prog="python -m agent_core.examples.build", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare the shipped files with a fresh build")
    parser.add_argument("--pace", type=float, default=1.0, help="scale of the model's waits (0: none)")
    args = parser.parse_args(argv)
    stale = []
    for item in EXAMPLES:
        data = build_example(item, pace=args.pace)
        if args.check:
            if not item.path.exists() or normalised(item.path.read_bytes()) != normalised(data):
                stale.append(item.name)
            continue
        item.path.write_bytes(data)
        print(f"wrote {item.path}", file=sys.stderr)
    if stale:
        print(f"out of date: {', '.join(stale)} (run python -m agent_core.examples.build)", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
