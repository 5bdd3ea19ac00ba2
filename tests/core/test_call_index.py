"""The lookup of a run's earlier calls (its folded state) by tool and canonical arguments."""

from agent_core.engine.state import RunState, canonical_arguments
from agent_core.events import ToolFinished, ToolStarted


def _call(step: int, tool: str, args: dict, output: str | None = "391") -> list:
    started = ToolStarted(run_id="r", step=step, call_id=f"c{step}", tool=tool, arguments=args)
    if output is None:
        return [started]
    return [started, ToolFinished(run_id="r", step=step, call_id=f"c{step}", tool=tool, output=output)]


def test_the_same_call_is_found_whatever_the_key_order_and_spacing():
    index = RunState.fold(_call(1, "calculator", {"expression": "17 * 23", "digits": 2}))
    found = index.find("calculator", {"digits": 2, "expression": "17 * 23"})
    assert found is not None and (found.step, found.finished.output) == (1, "391")
    assert canonical_arguments({"b": 2, "a": "é"}) == '{"a":"é","b":2}'


def test_other_arguments_another_tool_or_an_unfinished_call_are_not_found():
    index = RunState.fold([*_call(1, "calculator", {"expression": "1+1"}), *_call(2, "clock", {}, output=None)])
    assert index.find("calculator", {"expression": "1+2"}) is None
    assert index.find("dates", {"expression": "1+1"}) is None
    assert index.find("clock", {}) is None
    assert index.find("clock", {}, finished_only=False) is not None


def test_the_earliest_call_is_the_one_found_and_every_repeat_is_counted():
    index = RunState("r")
    for step in (2, 3, 5):
        for event in _call(step, "calculator", {"expression": "2**10"}, output=str(step)):
            index.add(event)
    assert index.find("calculator", {"expression": "2**10"}).step == 2
    assert index.count("calculator", {"expression": "2**10"}) == 3
    assert index.count("calculator", {"expression": "2**11"}) == 0
