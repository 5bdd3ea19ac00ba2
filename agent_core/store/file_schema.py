"""The session file's JSON Schema, generated from the pydantic models and the event union that validate it."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, TypeAdapter

from agent_core.events import Event
from agent_core.store.session_file import FORMAT, VERSION, SessionFile

SCHEMA_ID = f"https://sparrow.invalid/schemas/{FORMAT}.v{VERSION}.json"
"""A stable identifier for the schema (not fetched from anywhere)."""


def session_file_schema() -> dict[str, Any]:
    """JSON Schema (2020-12) of a session file: the document, and each event as ``{"seq": n}`` + the event."""
    schema = SessionFile.model_json_schema(ref_template="#/$defs/{model}")
    events = TypeAdapter(Annotated[Event, Field(discriminator="type")]).json_schema(ref_template="#/$defs/{model}")
    schema.setdefault("$defs", {}).update(events.pop("$defs", {}))
    seq = {"type": "object", "properties": {"seq": {"type": "integer", "minimum": 1}}, "required": ["seq"]}
    schema["properties"]["events"]["items"] = {"allOf": [seq, events]}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}
