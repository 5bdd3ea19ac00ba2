"""The session file (download / upload): one versioned JSON document of a session's metadata, snapshots and events.

Its keys come in a fixed order, in UTF-8, one event per line (``{"seq": n}`` followed by ``event.to_dict()``), so
two exports of a session are byte-identical and diff well. Import is strict and atomic: a size limit, validation by
the pydantic models below and ``events.event_from_dict``, a message naming the first problem (``events[12].type:
unknown event type 'foo'``), and nothing written unless everything is valid. ``session_file_schema`` generates the
file's JSON Schema from the same models and event union, so it cannot drift from them (docs/session-file.md)::

    {
      "format": "sparrow.session",
      "version": 1,
      "session": {"id": ..., "title": ..., "created_at": ..., "updated_at": ..., "parent_id": ...,
                  "forked_from": ..., "config": {"model": ..., "base_url": ..., "protocol": ..., "settings": {...}}},
      "snapshots": [{"id": ..., "name": ..., "created_at": ..., "upto_seq": ..., "title": ..., "config": {...}}],
      "events": [
        {"seq": 1, "type": "run_started", "run_id": ..., "ts": ..., ...},
        ...
      ]
    }
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from agent_core.events import Event, EventFormatError, event_from_dict
from agent_core.formatting import clip
from agent_core.guards.json_limits import ValueRefused, check_values
from agent_core.store.log import encode, gc_paused
from agent_core.store.sessions import SessionStore
from agent_core.store.tables import (
    MAX_SEQ,
    SessionDump,
    SessionInfo,
    SessionRecord,
    SnapshotInfo,
    SnapshotRecord,
    StoredEvent,
    fields_of,
)

FORMAT = "sparrow.session"
VERSION = 1
"""The version this build writes, and the newest it reads."""
MAX_IMPORT_BYTES = 64 * 1024 * 1024
MAX_SNAPSHOTS = 1000
MAX_MESSAGE_CHARS = 300
STRICT: Any = ConfigDict(extra="forbid", strict=True)  # Any: model_config is typed as sqlmodel's unexported config
"""A file is written by anyone: no unknown key, no coercion."""


class SessionFileError(ValueError):
    """A session file cannot be imported; the message names the first problem."""


class FileSession(SessionRecord):
    """The session's metadata in the file: a SessionRecord, validated strictly."""

    model_config = STRICT


class FileSnapshot(SnapshotRecord):
    """One named snapshot: the session's events up to ``upto_seq``; a SnapshotRecord, validated strictly."""

    model_config = STRICT


class SessionFile(BaseModel):
    """The whole document."""

    model_config = STRICT

    format: Literal["sparrow.session"]
    version: Annotated[int, Field(strict=True, ge=VERSION, le=VERSION)]
    """Checked before anything else (see ``_check_header``), so a newer file gets a clear refusal."""
    session: FileSession
    snapshots: list[FileSnapshot] = Field(default_factory=list, max_length=MAX_SNAPSHOTS)
    events: list[dict[str, Any]] = Field(default_factory=list)
    """Each ``{"seq": n, **event.to_dict()}``; validated one by one with ``event_from_dict``."""


# ── export ──────────────────────────────────────────────────────────────────────────────────────


def export_session(store: SessionStore, session_id: str) -> bytes:
    """The session as a session file (UTF-8 JSON bytes)."""
    return dump_document(store.dumps.read(session_id))


def dump_document(dump: SessionDump) -> bytes:
    """Serialise a SessionDump: header through the pydantic models, then one event per line."""
    head = SessionFile(
        format=FORMAT,
        version=VERSION,
        session=FileSession.model_validate(fields_of(dump, FileSession)),
        snapshots=[FileSnapshot.model_validate(fields_of(s, FileSnapshot)) for s in dump.snapshots],
    ).model_dump(mode="json", exclude={"events"})
    text = json.dumps(head, ensure_ascii=False, indent=2)
    lines = ",\n".join("    " + _event_line(e) for e in dump.events)
    events = f"[\n{lines}\n  ]" if lines else "[]"
    return f'{text[:-2]},\n  "events": {events}\n}}\n'.encode()


def _event_line(event: StoredEvent) -> str:
    if event.payload.startswith('{"type":'):  # as written by log.encode: splice seq in front
        return f'{{"seq":{event.seq},{event.payload[1:]}'
    return json.dumps({"seq": event.seq, **json.loads(event.payload)}, ensure_ascii=False, separators=(",", ":"))


def export_filename(session: SessionInfo) -> str:
    """A file name for a download: ``<title>-<id>.sparrow.json``."""
    slug = re.sub(r"[^\w\-]+", "-", session.title).strip("-")[:40].strip("-") or "session"
    return f"{slug}-{session.id}.sparrow.json"


# ── import ──────────────────────────────────────────────────────────────────────────────────────


def import_session(store: SessionStore, data: bytes | str, *, max_bytes: int = MAX_IMPORT_BYTES) -> SessionInfo:
    """Validate a session file and add it as a new, imported session (fresh ids if taken); raises SessionFileError."""
    return store.dumps.add(parse_document(data, max_bytes=max_bytes), imported=True)


def parse_document(data: bytes | str, *, max_bytes: int = MAX_IMPORT_BYTES) -> SessionDump:
    """A fully validated SessionDump from a session file; raises SessionFileError naming the first problem."""
    raw = data.encode() if isinstance(data, str) else data
    if len(raw) > max_bytes:
        raise SessionFileError(f"the file is {len(raw):,} bytes; the limit is {max_bytes:,} bytes")
    try:
        with gc_paused():
            return _dump(_validated(raw))
    except RecursionError:
        raise SessionFileError("the document is nested too deeply") from None


def _dump(document: SessionFile) -> SessionDump:
    events = _stored_events(document.events)
    try:
        check_values(document.session.config.model_dump(), "session.config")
        for index, snapshot in enumerate(document.snapshots):
            check_values(snapshot.config.model_dump(), f"snapshots[{index}].config")
    except ValueRefused as exc:
        raise SessionFileError(clip(str(exc), MAX_MESSAGE_CHARS)) from None
    snapshots = _snapshots(document, events[-1].seq if events else 0)
    return SessionDump.model_construct(**fields_of(document.session, FileSession), events=events, snapshots=snapshots)


def _validated(raw: bytes) -> SessionFile:
    """The document, validated: pydantic's own JSON parser first (fast), the standard one to name a problem."""
    if b"NaN" not in raw and b"Infinity" not in raw:  # pydantic would read those; the strict path refuses them
        try:
            return SessionFile.model_validate_json(raw)
        except ValidationError:
            pass
    document = _parse_json(raw)
    _check_header(document)
    try:
        return SessionFile.model_validate(document)
    except ValidationError as exc:
        raise SessionFileError(_first_problem(exc)) from None


def _parse_json(raw: bytes) -> Any:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SessionFileError(f"the file is not UTF-8 text (byte {exc.start})") from None
    try:
        document = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise SessionFileError(f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except ValueError as exc:
        raise SessionFileError(f"not valid JSON: {exc}") from None
    if _SURROGATE_ESCAPE.search(text):
        _refuse_lone_surrogates(document)
    return document


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _refuse_lone_surrogates(document: Any) -> None:
    """An unpaired ``\\udxxx`` escape decodes to text that cannot be stored as UTF-8: refuse it."""
    pending = [document]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            pending.extend(node.keys())
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                raise SessionFileError("not valid JSON: a \\u escape holds an unpaired UTF-16 surrogate") from None


def _check_header(document: Any) -> None:
    """Refuse what is not a session file, or a version this build cannot read, before validating the rest."""
    if not isinstance(document, dict):
        raise SessionFileError(f"the document must be a JSON object, got {_json_kind(document)}")
    if document.get("format") != FORMAT:
        raise SessionFileError(f"format: expected {FORMAT!r}, got {_show(document.get('format'))}")
    version = document.get("version")
    if type(version) is not int:
        raise SessionFileError(f"version: must be an integer, got {_show(version)}")
    if version != VERSION:
        newer = "a newer" if version > VERSION else "an unknown"
        raise SessionFileError(
            f"version: this is {newer} version ({version}) of the {FORMAT} format; this build of Sparrow reads "
            f"version {VERSION}" + (" (upgrade Sparrow to import it)" if version > VERSION else "")
        )


def _stored_events(entries: Sequence[dict[str, Any]]) -> list[StoredEvent]:
    events: list[StoredEvent] = []
    previous = 0
    for index, entry in enumerate(entries):
        where = f"events[{index}]"
        seq = entry.pop("seq", None)
        if type(seq) is not int or not 1 <= seq <= MAX_SEQ:
            raise SessionFileError(f"{where}.seq: must be a positive integer, got {_show(seq)}")
        if seq <= previous:
            problem = "duplicate sequence number" if seq == previous else "sequence number out of order:"
            raise SessionFileError(f"{where}.seq: {problem} {seq}")
        previous = seq
        try:
            check_values(entry, where)
            event = event_from_dict(entry)
        except ValueRefused as exc:
            raise SessionFileError(clip(str(exc), MAX_MESSAGE_CHARS)) from None
        except EventFormatError as exc:
            raise SessionFileError(clip(f"{where}.{exc}", MAX_MESSAGE_CHARS)) from None
        events.append(StoredEvent(seq, event.run_id, event.type, event.ts, encode(event)))
    return events


def _snapshots(document: SessionFile, last_seq: int) -> list[SnapshotInfo]:
    ids: set[str] = set()
    names: set[str] = set()
    for index, snap in enumerate(document.snapshots):
        where = f"snapshots[{index}]"
        if snap.upto_seq > last_seq:
            raise SessionFileError(f"{where}.upto_seq: {snap.upto_seq} is after the last event ({last_seq})")
        if snap.id in ids:
            raise SessionFileError(f"{where}.id: duplicate snapshot id {snap.id!r}")
        if snap.name in names:
            raise SessionFileError(clip(f"{where}.name: duplicate snapshot name {snap.name!r}", MAX_MESSAGE_CHARS))
        ids.add(snap.id)
        names.add(snap.name)
    owner = document.session.id
    return [SnapshotInfo.model_construct(**fields_of(s, FileSnapshot), session_id=owner) for s in document.snapshots]


def _first_problem(exc: ValidationError) -> str:
    first = exc.errors(include_url=False)[0]
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"]).lstrip(".")
    return clip(f"{path or 'document'}: {first['msg']}", MAX_MESSAGE_CHARS)


def _json_kind(value: Any) -> str:
    kinds = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return kinds.get(type(value), "a number")


def _show(value: Any) -> str:
    text = repr(value) if isinstance(value, (str, int, float, bool)) else _json_kind(value)
    return text if len(text) <= 60 else text[:57] + "..."


# ── the JSON Schema ───────────────────────────────────────────────────────────────────────────────


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
