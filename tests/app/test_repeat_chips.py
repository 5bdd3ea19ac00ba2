"""The step chips of a run that repeated its calls: the repeat, the narrowing and the stop, each its own chip."""

from __future__ import annotations

from agent_core.views.transcript import Transcript
from sparrow_ui.steps.step_status import failing, step_chips
from tests.observability.test_repeat_trace import looping_run


def test_step_chips_name_the_repeat_the_narrowing_and_the_stop() -> None:
    turn = Transcript.from_events(looping_run()).runs[0]
    chips = [[c.text for c in step_chips(turn, i, live=False)] for i in range(len(turn.steps))]
    assert chips == [
        ["ok"],
        ["repeat of step 1, not run again"],
        ["repeat of step 1, not run again", "answer requested after 2 repeats"],
        ["repeat of step 1, not run again", "stopped: repeated call"],
    ]
    assert failing(turn, 3) and not failing(turn, 1)
