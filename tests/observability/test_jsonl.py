"""JSON Lines export: exactly ``event.to_dict()`` per line, and back to equal events."""

from __future__ import annotations

import io
import json

import pytest

from agent_core import Agent
from agent_core.events import EventFormatError
from agent_core.testing import Reply, ScriptedModel
from agent_core.tools import builtin_tools
from agent_core.trace_export import read_jsonl, to_jsonl, write_jsonl
from tests.observability.builders import session


def real_session() -> list:
    """Two turns of a real agent (deltas, messages, tool details, Unicode and all)."""
    agent = Agent(
        ScriptedModel(
            [
                Reply.call("date_calculator", operation="add", date="2024-05-20", days=150),
                "2024-10-17，星期四",
                Reply(text="42", reasoning="6 times 7", usage=(90, 9)),
            ]
        ),
        builtin_tools(),
        protocol="tools",
    )
    return list(agent.run("150 days after 2024-05-20?")) + list(agent.run("6*7?"))


def test_round_trip_of_a_real_session() -> None:
    events = real_session()
    text = to_jsonl(events)
    lines = text.splitlines()
    assert text.endswith("\n") and len(lines) == len(events)
    assert [json.loads(line) for line in lines] == [e.to_dict() for e in events]
    assert "星期四" in text  # kept as UTF-8, not escaped
    assert read_jsonl(text) == events
    assert read_jsonl(io.StringIO(text)) == events


def test_write_jsonl_streams_to_a_file_and_blank_lines_are_skipped_on_read() -> None:
    out = io.StringIO()
    assert write_jsonl(session(), out) == len(session())
    assert read_jsonl("\n" + out.getvalue().replace("\n", "\n\n")) == session()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"type": "step_started", "run_id": "r", "ts": 1, "step": 1}\n{oops', r"^line 2: not JSON"),
        ('{"type": "nope", "run_id": "r"}', r"^line 1: type: unknown event type 'nope'"),
        ('{"type": "step_started", "run_id": "r", "step": "x"}', r"^line 1: step: "),
        ("[1]", r"^line 1: event must be an object"),
    ],
)
def test_read_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(EventFormatError, match=message):
        read_jsonl(text)
