"""Datasets: the item and its checks, the files items come in, and the versioned datasets of the store. An item is a
question (optionally with earlier turns), what is expected (an ``answer`` and/or ``expect``: one check or a list of
them, e.g. ``{"id": "mul", "question": "What is 17 * 23?", "expect": {"contains": "391"}}``), tags and free
metadata; an item with only an ``answer`` is checked with ``exact`` (normalised) against it. Files are JSONL, CSV
and YAML in, JSONL out, validated whole before anything is stored: every problem is one sentence naming its line (or
item), and a file with any problem imports nothing (CSV columns: ``question`` (required), ``id``, ``answer``,
``expect`` and ``turns`` (JSON text), ``tags`` (separated by ``,`` or ``;``), any other column becomes metadata;
YAML: a list of items, or a mapping with ``items`` and optionally ``name`` and ``description``). A stored dataset
version never changes: importing under a name the actor already has, or adding an item, makes the next version.
Every call acts for ``store.actor`` (``store.acting_as``): a user sees and changes only their own datasets, an admin
all of them.
"""

from __future__ import annotations

import csv
import io
import json
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from sqlalchemy import func
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import Select, SelectOfScalar

from agent_core.experiments.tables import DatasetItemRow, DatasetRow
from agent_core.store import Actor, SessionStore
from agent_core.store.access import new_id
from agent_core.store.database import writer
from agent_core.views.transcript import Transcript

MAX_QUESTION_CHARS = 20_000
MAX_TURNS = 50
MAX_CHECKS = 20
MAX_TAGS = 20
KINDS = (
    "exact",
    "contains",
    "regex",
    "number",
    "json_field",
    "tool_called",
    "tool_not_called",
    "max_steps",
    "no_format_retries",
    "max_cost",
    "max_latency_ms",
    "judge",
    "scorer",
)
"""The kinds of check; each check object names exactly one of them."""


class Check(BaseModel):
    """One thing an answer or run must satisfy; exactly one kind is set (the other fields refine it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    exact: str | None = Field(default=None, max_length=MAX_QUESTION_CHARS)
    """The answer equals this, after normalising case, spaces and trailing punctuation."""
    contains: str | None = Field(default=None, min_length=1, max_length=MAX_QUESTION_CHARS)
    """The answer contains this (case-insensitive unless ``case_sensitive``)."""
    regex: str | None = Field(default=None, min_length=1, max_length=2000)
    """The answer matches this Python regular expression somewhere."""
    number: int | float | None = None
    """Some number in the answer (``1,048,576``, ``4.44``, ``-3``) is within ``tolerance`` of this."""
    tolerance: float = Field(default=1e-9, ge=0)
    json_field: str | None = Field(default=None, min_length=1, max_length=200)
    """A dotted path (``a.b.0``) into the answer read as JSON; its value must equal ``equals``."""
    equals: Any = None
    tool_called: str | None = Field(default=None, min_length=1, max_length=100)
    """The run called this tool at least once."""
    tool_not_called: str | None = Field(default=None, min_length=1, max_length=100)
    max_steps: int | None = Field(default=None, ge=1)
    no_format_retries: bool | None = None
    """True: no model reply in the run broke the protocol's format."""
    max_cost: float | None = Field(default=None, ge=0)
    """Dollars the run may cost at most (an unpriced model fails this check, saying so)."""
    max_latency_ms: float | None = Field(default=None, ge=0)
    judge: str | None = Field(default=None, min_length=1, max_length=5000)
    """A rubric: a judge model reads the question, the answer (and the expected one) and says PASS or FAIL, why."""
    scorer: str | None = Field(default=None, min_length=1, max_length=100)
    """The name of a custom ``@scorer``."""
    case_sensitive: bool = False

    @model_validator(mode="after")
    def _one_kind(self) -> Check:
        named = [k for k in KINDS if getattr(self, k) is not None]
        if len(named) != 1:
            got = ", ".join(named) or "none"
            raise ValueError(f"a check names exactly one of {', '.join(KINDS)} (this one names {got})")
        if self.regex is not None:
            try:
                re.compile(self.regex)
            except re.error as exc:
                raise ValueError(f"the regex {self.regex!r} does not compile ({exc})") from None
        return self

    @property
    def kind(self) -> str:
        """The kind of check this is (``contains``, ``number``...)."""
        return next(k for k in KINDS if getattr(self, k) is not None)

    def spec(self) -> dict[str, Any]:
        """The check as written in a dataset file (defaults left out)."""
        return self.model_dump(exclude_defaults=True)


class EarlierTurn(BaseModel):
    """A question and answer the conversation already holds when the item's question is asked."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    answer: str = Field(default="", max_length=MAX_QUESTION_CHARS)


class DatasetItem(BaseModel):
    """One question of a dataset and what is expected of its answer."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.\-]{1,64}$")
    """The item's own id; ``item-N`` (its 1-based position) when left out."""
    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    turns: tuple[EarlierTurn, ...] = Field(default=(), max_length=MAX_TURNS)
    answer: str | None = Field(default=None, max_length=MAX_QUESTION_CHARS)
    """The expected answer: checked with ``exact`` unless ``expect`` says otherwise; a judge sees it too."""
    expect: tuple[Check, ...] = Field(default=(), max_length=MAX_CHECKS)
    tags: tuple[str, ...] = Field(default=(), max_length=MAX_TAGS)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("expect", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, dict) else value

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the question is blank")
        return value

    @model_validator(mode="after")
    def _something_to_check(self) -> DatasetItem:
        if self.answer is None and not self.expect:
            raise ValueError('the item has nothing to check: give an "answer" or an "expect"')
        return self

    @property
    def checks(self) -> tuple[Check, ...]:
        """What is checked: ``expect``, else ``exact`` against the answer."""
        return self.expect or (Check(exact=self.answer),)

    def record(self) -> dict[str, Any]:
        """The item as a dataset file line holds it (defaults left out)."""
        data = self.model_dump(exclude_defaults=True, exclude={"expect"})
        if self.expect:
            specs = [c.spec() for c in self.expect]
            data["expect"] = specs[0] if len(specs) == 1 else specs
        return data


def problems_of(exc: ValidationError, where: str) -> list[str]:
    """Each validation error as one sentence naming where it is (``line 3: question: ...``)."""
    out = []
    for error in exc.errors():
        loc = ".".join(str(p) for p in error.get("loc", ()))
        message = str(error.get("msg", "is invalid")).removeprefix("Value error, ")
        out.append(f"{where}: {loc + ': ' if loc else ''}{message}")
    return out


MAX_DATASET_BYTES = 10 * 1024 * 1024
MAX_ITEMS = 10_000
MAX_PROBLEMS = 20
"""Problems listed at most (the count of the rest is given)."""
FORMATS = ("jsonl", "csv", "yaml")
_CSV_COLUMNS = {"id", "question", "answer", "expect", "turns", "tags"}


class DatasetFileError(ValueError):
    """A dataset file that cannot be imported; ``problems`` holds one sentence per problem."""

    def __init__(self, problems: list[str]) -> None:
        shown = problems[:MAX_PROBLEMS]
        more = len(problems) - len(shown)
        super().__init__("\n".join(shown + ([f"... and {more} more problem(s)"] if more else [])))
        self.problems = problems


@dataclass(frozen=True)
class ParsedDataset:
    """What a file holds: its items, and the name and description it gives itself (YAML only)."""

    items: tuple[DatasetItem, ...]
    name: str | None = None
    description: str = ""
    source: str = field(default="", compare=False)


def format_of(path: str | Path) -> str:
    """``jsonl``, ``csv`` or ``yaml`` from the file name; DatasetFileError for another suffix."""
    suffix = Path(path).suffix.lower().lstrip(".")
    kind = {"jsonl": "jsonl", "ndjson": "jsonl", "csv": "csv", "yaml": "yaml", "yml": "yaml"}.get(suffix)
    if kind is None:
        raise DatasetFileError([f"{Path(path).name}: a dataset file ends in .jsonl, .csv, .yaml or .yml"])
    return kind


def read_dataset_file(path: str | Path) -> ParsedDataset:
    """Read and validate a dataset file (its format from its suffix)."""
    path = Path(path)
    kind = format_of(path)
    size = path.stat().st_size
    if size > MAX_DATASET_BYTES:
        raise DatasetFileError([f"{path.name} is {size:,} bytes; a dataset file is at most {MAX_DATASET_BYTES:,}"])
    return parse_dataset(path.read_bytes(), kind, source=path.name)


def parse_dataset(data: bytes, kind: str, *, source: str = "the file") -> ParsedDataset:
    """Validate a dataset file's bytes; raises DatasetFileError listing every problem (nothing half-imported)."""
    if len(data) > MAX_DATASET_BYTES:
        raise DatasetFileError([f"{source} is {len(data):,} bytes; a dataset file is at most {MAX_DATASET_BYTES:,}"])
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetFileError([f"{source} is not UTF-8 text (byte {exc.start} is not valid)"]) from None
    raw, name, description = _records(text, kind, source)
    if not raw:
        raise DatasetFileError([f"{source} holds no items"])
    if len(raw) > MAX_ITEMS:
        raise DatasetFileError([f"{source} holds {len(raw):,} items; a dataset holds at most {MAX_ITEMS:,}"])
    items = validate_items(raw)
    return ParsedDataset(items, name, description, source)


def validate_items(raw: Iterable[tuple[str, Any]]) -> tuple[DatasetItem, ...]:
    """``(where, record)`` pairs validated into items with distinct ids; DatasetFileError lists every problem."""
    items: list[DatasetItem] = []
    problems: list[str] = []
    seen: dict[str, str] = {}
    for number, (where, record) in enumerate(raw, start=1):
        if not isinstance(record, dict):
            problems.append(f"{where}: an item is an object with a question, not {type(record).__name__}")
            continue
        try:
            item = DatasetItem.model_validate(record)
        except ValidationError as exc:
            problems.extend(problems_of(exc, where))
            continue
        item = item if item.id else item.model_copy(update={"id": f"item-{number}"})
        if item.id in seen:
            problems.append(f"{where}: the id {item.id!r} is already used by {seen[item.id]}")
            continue
        seen[str(item.id)] = where
        items.append(item)
    if problems:
        raise DatasetFileError(problems)
    return tuple(items)


def _records(text: str, kind: str, source: str) -> tuple[list[tuple[str, Any]], str | None, str]:
    if kind == "jsonl":
        return _jsonl(text), None, ""
    if kind == "csv":
        return _csv(text, source), None, ""
    return _yaml(text, source)


def _jsonl(text: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append((f"line {number}", json.loads(line)))
        except json.JSONDecodeError as exc:
            problems.append(f"line {number}: not valid JSON ({exc.msg} at column {exc.colno})")
    if problems:
        raise DatasetFileError(problems)
    return out


def _csv(text: str, source: str) -> list[tuple[str, Any]]:
    reader = csv.DictReader(io.StringIO(text))
    if "question" not in (reader.fieldnames or []):
        raise DatasetFileError([f"{source}: a CSV dataset needs a 'question' column (its first row names columns)"])
    out: list[tuple[str, Any]] = []
    problems: list[str] = []
    for row in reader:
        where = f"line {reader.line_num}"
        try:
            out.append((where, _csv_record(row)))
        except ValueError as exc:
            problems.append(f"{where}: {exc}")
    if problems:
        raise DatasetFileError(problems)
    return out


def _csv_record(row: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = {"question": row.get("question") or ""}
    for column in ("id", "answer"):
        if row.get(column):
            record[column] = row[column]
    for column in ("expect", "turns"):
        if row.get(column):
            try:
                record[column] = json.loads(row[column])
            except json.JSONDecodeError as exc:
                raise ValueError(f"the {column} column is not valid JSON ({exc.msg})") from None
    if row.get("tags"):
        record["tags"] = [t.strip() for t in row["tags"].replace(";", ",").split(",") if t.strip()]
    extra = {k: v for k, v in row.items() if k and k not in _CSV_COLUMNS and v not in (None, "")}
    if extra:
        record["metadata"] = extra
    return record


def _yaml(text: str, source: str) -> tuple[list[tuple[str, Any]], str | None, str]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise DatasetFileError(
            [f"{source} is not valid YAML{where} ({getattr(exc, 'problem', None) or exc})"]
        ) from None
    name, description = None, ""
    if isinstance(data, dict):
        name = str(data["name"]) if data.get("name") else None
        description = str(data.get("description") or "")
        data = data.get("items")
    if not isinstance(data, list):
        raise DatasetFileError([f"{source}: a YAML dataset is a list of items, or a mapping with 'items'"])
    return [(f"item {n}", record) for n, record in enumerate(data, start=1)], name, description


def to_jsonl(items: Iterable[DatasetItem]) -> str:
    """The items as JSONL text, one item per line (read back by ``parse_dataset`` unchanged)."""
    return "".join(json.dumps(item.record(), ensure_ascii=False) + "\n" for item in items)


class DatasetNotFound(LookupError):
    """No dataset of this id or name (or not the actor's: worded the same, so it reveals nothing)."""


@dataclass(frozen=True)
class DatasetInfo:
    """A dataset version, without its items."""

    id: str
    name: str
    version: int
    item_count: int
    created_at: float
    owner: str | None
    description: str = ""

    @classmethod
    def of(cls, row: DatasetRow) -> DatasetInfo:
        """The info of a stored row."""
        return cls(row.id, row.name, row.version, row.item_count, row.created_at, row.owner, row.description)

    @property
    def label(self) -> str:
        """``name v2 (20 items)``."""
        return f"{self.name} v{self.version} ({self.item_count} items)"


def visible(actor: Actor, owner: str | None) -> bool:
    """True when ``actor`` may see what ``owner`` owns (datasets and experiments: never a share viewer)."""
    return not actor.read_only and (actor.is_admin or (owner is not None and owner == actor.subject))


_Query = TypeVar("_Query", Select[Any], SelectOfScalar[Any])


def owned(query: _Query, owner: Any, actor: Actor) -> _Query:
    """``query`` narrowed to the rows whose ``owner`` column is ``actor``'s (an admin's: all): ``visible`` in SQL."""
    return query if actor.is_admin else query.where(owner == actor.subject)


def create_dataset(
    store: SessionStore, name: str, items: Sequence[DatasetItem], *, description: str = ""
) -> DatasetInfo:
    """Store ``items`` as the next version of the actor's dataset ``name`` (1 if new), all or nothing."""
    store.actor.check_writable()
    name = " ".join(name.split())[:200]
    if not name:
        raise DatasetFileError(["a dataset needs a name"])
    checked = validate_items((f"item {n}", i.model_dump()) for n, i in enumerate(items, start=1))
    with Session(writer(store.engine), expire_on_commit=False) as db:
        latest = db.exec(
            select(func.max(DatasetRow.version)).where(DatasetRow.name == name, DatasetRow.owner == store.actor.owner)
        ).one()
        row = DatasetRow(
            id=new_id("ds"),
            name=name,
            version=(latest or 0) + 1,
            description=description,
            owner=store.actor.owner,
            created_at=time.time(),
            item_count=len(checked),
        )
        db.add(row)
        db.flush()
        for position, item in enumerate(checked):
            db.add(DatasetItemRow(dataset_id=row.id, position=position, key=str(item.id), data=item.model_dump()))
        db.commit()
        return DatasetInfo.of(row)


def import_dataset(store: SessionStore, parsed: ParsedDataset, name: str | None = None) -> DatasetInfo:
    """Store a parsed file as a dataset named ``name`` (else the file's own name, else its file name)."""
    chosen = name or parsed.name or (parsed.source.rsplit(".", 1)[0] if parsed.source else "dataset")
    return create_dataset(store, chosen, parsed.items, description=parsed.description)


def list_datasets(store: SessionStore) -> list[DatasetInfo]:
    """The actor's datasets, every version, newest first."""
    query = owned(select(DatasetRow).order_by(col(DatasetRow.created_at).desc()), DatasetRow.owner, store.actor)
    if store.actor.read_only:
        return []
    with Session(store.engine) as db:
        return [DatasetInfo.of(row) for row in db.exec(query)]


def get_dataset(store: SessionStore, ref: str) -> DatasetInfo:
    """A dataset by id, or by name (its newest version the actor may see); raises DatasetNotFound."""
    with Session(store.engine) as db:
        row = db.get(DatasetRow, ref)
        if row is None or not visible(store.actor, row.owner):
            candidates = db.exec(select(DatasetRow).where(DatasetRow.name == ref).order_by(col(DatasetRow.version)))
            mine = [r for r in candidates if visible(store.actor, r.owner)]
            row = mine[-1] if mine else None
        if row is None:
            raise DatasetNotFound(f"no dataset {ref!r}")
        return DatasetInfo.of(row)


def dataset_items(store: SessionStore, dataset_id: str) -> list[DatasetItem]:
    """The items of a dataset version, in order."""
    info = get_dataset(store, dataset_id)
    with Session(store.engine) as db:
        rows = db.exec(
            select(DatasetItemRow).where(DatasetItemRow.dataset_id == info.id).order_by(col(DatasetItemRow.position))
        )
        return [DatasetItem.model_validate(row.data) for row in rows]


def item_from_turn(store: SessionStore, session_id: str, run_id: str) -> DatasetItem:
    """A dataset item from a finished turn: its question, its earlier turns, and its answer as the expected one."""
    turns = Transcript.from_events(store.log.events(session_id)).turns
    index = next((i for i, turn in enumerate(turns) if turn.run_id == run_id), None)
    if index is None:
        raise DatasetNotFound(f"session {session_id!r} has no turn {run_id!r}")
    earlier = [{"question": t.question, "answer": t.answer or ""} for t in turns[:index] if t.status == "completed"]
    turn = turns[index]
    return DatasetItem.model_validate(
        {"question": turn.question, "turns": earlier, "answer": turn.answer or "", "metadata": {"from": session_id}}
    )


def add_items(store: SessionStore, ref: str, new: Sequence[DatasetItem]) -> DatasetInfo:
    """The next version of dataset ``ref`` (by id or name) with ``new`` items appended (ids made distinct)."""
    info = get_dataset(store, ref)
    items = dataset_items(store, info.id)
    taken = {item.id for item in items}
    for item in new:
        key = item.id if item.id and item.id not in taken else f"item-{len(items) + 1}"
        while key in taken:
            key = f"{key}-x"
        taken.add(key)
        items.append(item.model_copy(update={"id": key}))
    return create_dataset(store, info.name, items, description=info.description)
