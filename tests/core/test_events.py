"""The closed event union: every class in it, decoded by its tag, documented, and handled by every view."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import io
from dataclasses import dataclass, field
from typing import Literal, get_args, get_type_hints

import pytest

from agent_core import events as events_module
from agent_core.cli.trace_printer import TracePrinter
from agent_core.events import EVENT_TYPES, Event, EventBase, EventFormatError, RunFinished, event_from_dict
from tests.store.helpers import branch_events, every_event_type


def test_the_union_holds_every_event_class_once_each_with_its_own_tag() -> None:
    members = get_args(Event)
    assert set(members) == set(EVENT_TYPES.values()) and len(members) == len(EVENT_TYPES)
    assert {type(e) for e in [*every_event_type(), *branch_events()]} == set(members)
    for tag, cls in EVENT_TYPES.items():
        assert issubclass(cls, EventBase) and cls.type == tag
        assert get_type_hints(cls)["type"] == Literal[tag]  # a type checker can narrow on ``event.type``


def test_to_dict_starts_with_the_tag_and_decodes_to_the_same_event() -> None:
    for event in [*every_event_type(), *branch_events()]:
        data = event.to_dict()
        assert next(iter(data)) == "type" and data["type"] == event.type
        assert event_from_dict(data) == event and type(event_from_dict(data)) is type(event)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"type": "nope", "run_id": "r"}, "type: unknown event type 'nope'"),
        ({"run_id": "r"}, "type: unknown event type None"),
        ({"type": "step_started", "run_id": "r", "step": "two"}, "step: Input should be a valid integer"),
        ({"type": "run_finished", "run_id": "r"}, "status: Field required (in a 'run_finished' event)"),
    ],
)
def test_bad_dicts_are_refused_naming_the_field(data: dict[str, object], message: str) -> None:
    with pytest.raises(EventFormatError, match=message.replace("(", r"\(").replace(")", r"\)")):
        event_from_dict(data)


def test_every_field_of_every_event_has_a_docstring() -> None:
    tree = ast.parse(inspect.getsource(events_module))
    undocumented = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or not dataclasses.is_dataclass(getattr(events_module, node.name)):
            continue
        for item, after in zip(node.body, [*node.body[1:], None], strict=True):
            documented = isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
            if isinstance(item, ast.AnnAssign) and not documented:
                undocumented.append(f"{node.name}.{ast.unparse(item.target)}")
    assert undocumented == []


def test_the_terminal_view_handles_every_event_type() -> None:
    out = io.StringIO()
    printer = TracePrinter(out)
    for event in every_event_type():
        printer(event)
    assert "▶ ¿Qué día es?" in out.getvalue() and "✓ completed" in out.getvalue()


def test_an_event_outside_the_union_is_not_silently_ignored_by_the_terminal_view() -> None:
    @dataclass(frozen=True, kw_only=True)
    class Unheard(EventBase):
        type: Literal["unheard"] = field(default="unheard", init=False)

    with pytest.raises(AssertionError):
        TracePrinter(io.StringIO())(Unheard(run_id="r"))  # type: ignore[arg-type]
    assert isinstance(RunFinished(run_id="r", status="completed"), Event)
