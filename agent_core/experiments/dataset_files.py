"""Dataset files: JSONL, CSV and YAML in, JSONL out; validated whole before anything is stored.

Every problem is one sentence naming its line (or item); a file with any problem imports nothing.
CSV columns: ``question`` (required), ``id``, ``answer``, ``expect`` and ``turns`` (JSON text), ``tags``
(separated by ``,`` or ``;``); any other column becomes metadata. YAML: a list of items, or a mapping
with ``items`` (and optionally ``name`` and ``description``).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from agent_core.experiments.items import DatasetItem, problems_of

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
