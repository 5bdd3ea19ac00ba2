"""Datasets in the store: made from a file, from a turn or from items; versioned; owned like sessions.

A dataset version never changes: importing under a name the actor already has, or adding an item to a
dataset, makes the next version. Every call acts for ``store.actor`` (``store.acting_as``): a user sees and
changes only their own datasets, an admin all of them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import func
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import Select, SelectOfScalar

from agent_core.experiments.dataset_files import DatasetFileError, ParsedDataset, validate_items
from agent_core.experiments.experiment_tables import DatasetItemRow, DatasetRow
from agent_core.experiments.items import DatasetItem
from agent_core.store import Actor, SessionStore
from agent_core.store.access import new_id
from agent_core.store.database import writer
from agent_core.views.transcript import Transcript


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
