"""Stored event text: JSON of to_dict() on the way in, validated events on the way out."""

from __future__ import annotations

import dataclasses
import json

import pytest

from agent_core.events import EVENT_TYPES, EventFormatError, ModelFinished, ToolFinished
from agent_core.store.log import decode, encode
from tests.store.helpers import arithmetic_agent, branch_events, every_event_type


def test_encode_is_the_json_of_to_dict_and_decode_gives_the_event_back() -> None:
    agent = arithmetic_agent()
    events = every_event_type() + branch_events() + list(agent.run("What is 6*7?")) + list(agent.run("Add 2 to that"))
    assert {e.type for e in events} == set(EVENT_TYPES)
    for event in events:
        text = encode(event)
        assert text.startswith('{"type":') and json.loads(text) == event.to_dict()
        assert list(json.loads(text)) == list(event.to_dict())  # same key order
        assert decode(event.type, text) == event


def test_text_is_compact_utf8() -> None:
    text = encode(every_event_type()[0])
    assert "今天星期几" in text and "\\u" not in text and ", " not in text


def test_damaged_rows_are_named() -> None:
    with pytest.raises(EventFormatError, match="step"):
        decode("step_started", '{"type":"step_started","run_id":"r","ts":1.0,"step":"two"}')
    with pytest.raises(EventFormatError, match="not valid JSON"):
        decode("final_answer", '{"type":"final_answer",')
    with pytest.raises(EventFormatError, match="unknown event type 'nope'"):
        decode("nope", '{"type":"nope","run_id":"r"}')


def test_dict_keys_json_cannot_take_fall_back_to_to_dict() -> None:
    event = ToolFinished(run_id="r", ts=1.0, step=1, call_id="c", tool="t", details={(1, 2): "pair"})
    assert json.loads(encode(event))["details"] == {"(1, 2)": "pair"}


def test_every_field_is_stored_even_at_its_default() -> None:
    plain = ModelFinished(run_id="r", step=1, text="hi")
    retried = dataclasses.replace(plain, retried_after=("503", "connection"))
    assert json.loads(encode(plain))["retried_after"] == [] == plain.to_dict()["retried_after"]
    assert json.loads(encode(retried))["retried_after"] == ["503", "connection"] == retried.to_dict()["retried_after"]
    for event in (plain, retried):
        assert json.loads(encode(event)) == event.to_dict()
        assert decode("model_finished", encode(event)) == event
