"""Build the example session files: ``python -m agent_core.examples.build`` (``--check`` compares instead).

Each example is a real run of the agent loop: a ScriptedModel (``agent_core.testing``) gives the replies of its
script (``SCRIPTS``: what the example's model "writes", turn by turn), the real built-in tools run (the calculator
and the date calculator, so each reply after a tool call is written to match what the tool returns; ``_check``
refuses a run that does not end as its script says), every event is recorded in a session of an in-memory store,
and the session is exported as a session file. The model waits a little before each reply (``pace``) so the
timings look like a model's; ids, times and durations differ from one build to the next, and ``normalised``
leaves them out when comparing a build with the shipped files.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Any

from agent_core.engine.agent import Agent
from agent_core.events import Event, RunFinished, ToolFinished
from agent_core.examples import EXAMPLE_KEY, EXAMPLES, Example
from agent_core.runtime.sessions import config_from_agent, run_in_session
from agent_core.store import SessionStore, export_session
from agent_core.testing import Reply, ScriptedModel
from agent_core.tools import builtin_tools


@dataclass(frozen=True)
class Turn:
    """One question of an example and the replies its scripted model gives, in order."""

    question: str
    replies: tuple[str | Reply, ...]
    observed: tuple[str, ...] = ()
    """Text the tools' outputs must hold, in order of the calls: the replies after them rely on it."""
    status: str = "completed"
    """How the run must end."""


def _react(thought: str, tool: str, arguments: str, colon: str = ":") -> str:
    return f"Thought{colon} {thought}\nAction{colon} {tool}\nAction Input{colon} {arguments}"


def _answer(thought: str, answer: str, colon: str = ":") -> str:
    return f"Thought{colon} {thought}\nFinal Answer{colon} {answer}"


DATES = (
    Turn(
        "What weekday is 150 days after 2024-05-20? And what is 17.5% of 2,340?",
        (
            _react(
                "Two separate tasks. First the date: I will add 150 days to 2024-05-20 with the date tool.",
                "date_calculator",
                '{"operation": "add", "date": "2024-05-20", "days": 150}',
            ),
            _react(
                "150 days after 2024-05-20 is 2024-10-17, a Thursday. Now the percentage: 0.175 * 2340.",
                "calculator",
                '{"expression": "0.175 * 2340"}',
            ),
            _answer(
                "I have both results.",
                "150 days after 2024-05-20 is **Thursday, 2024-10-17**, and 17.5% of 2,340 is **409.5**.",
            ),
        ),
        observed=("= 2024-10-17 (Thursday)", "409.5"),
    ),
    Turn(
        "How many days are there from that date to 2025-01-01?",
        (
            _react(
                "'That date' is 2024-10-17 from the previous answer. I will count the days to 2025-01-01.",
                "date_calculator",
                '{"operation": "difference", "date": "2024-10-17", "other_date": "2025-01-01"}',
            ),
            _answer("The tool counted them.", "From Thursday 2024-10-17 to 2025-01-01 there are **76 days**."),
        ),
        observed=("is 76 days",),
    ),
)

PARALLEL = (
    Turn(
        "Which is bigger, 2^64 or 10^19, and by how much? How many days are there from 2024-01-01 to "
        "2024-12-25, and on what weekday is that Christmas?",
        (
            Reply(
                text="Three independent questions: I will ask all three tools at once.",
                reasoning="The comparison is one subtraction; the day count and the weekday are two date operations.",
                tool_calls=(
                    ("calculator", {"expression": "2**64 - 10**19"}),
                    ("date_calculator", {"operation": "difference", "date": "2024-01-01", "other_date": "2024-12-25"}),
                    ("date_calculator", {"operation": "weekday", "date": "2024-12-25"}),
                ),
            ),
            Reply(
                text="- **2^64 is bigger**: 2^64 − 10^19 = 8,446,744,073,709,551,616.\n"
                "- From 2024-01-01 to 2024-12-25 there are **359 days**.\n"
                "- Christmas 2024 is on a **Wednesday**."
            ),
        ),
        observed=("8446744073709551616", "is 359 days", "(Wednesday)"),
    ),
)

RECOVERY = (
    Turn(
        "What is the square root of the number of days between 2023-03-01 and 2024-03-01, to two decimals?",
        (
            "Sure! First I should count the days between the two dates, and then take the square root.",
            _react(
                "I forgot the format. Count the days first.",
                "date_calculator",
                '{"operation": "difference", "date": "2023-03-01", "other_date": "2024-03-01"}',
            ),
            _react("366 days (2024 is a leap year). Now the square root.", "calculator", '{"expression": "sqrt(366"}'),
            _react(
                "The calculator refused my expression: a parenthesis is missing. Fix it and round to two decimals.",
                "calculator",
                '{"expression": "round(sqrt(366), 2)"}',
            ),
            _answer(
                "Done, after fixing my own mistakes.",
                "There are 366 days between 2023-03-01 and 2024-03-01, and √366 ≈ **19.13**.",
            ),
        ),
        observed=("is 366 days", "was never closed", "19.13"),
    ),
)

CHINESE = (
    Turn(
        "2024年5月20日之后150天是星期几？这150天大约是多少周？",
        (
            _react(
                "先用日期工具算出 2024-05-20 加 150 天。",
                "date_calculator",
                '{"operation": "add", "date": "2024-05-20", "days": 150}',
                "：",
            ),
            _react("是 2024-10-17，星期四。再算 150 ÷ 7。", "calculator", '{"expression": "round(150 / 7, 1)"}', "："),
            _answer(
                "两个结果都有了。",
                "2024年5月20日之后150天是 **2024年10月17日，星期四**；150 天约为 **21.4 周**。",
                "：",
            ),
        ),
        observed=("= 2024-10-17 (Thursday)", "21.4"),
    ),
)

SCRIPTS: dict[str, tuple[Turn, ...]] = {
    "dates": DATES,
    "parallel": PARALLEL,
    "recovery": RECOVERY,
    "chinese": CHINESE,
}
"""The turns of each example, by name (the names of ``agent_core.examples.EXAMPLES``)."""


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
