"""Data from before owners had issuers: a bare subject becomes ``ISSUER#SUBJECT`` when its user signs in.

Migration 0007 leaves existing owners as bare subjects (the ``[auth]`` provider's users: the only provider there
was). ``adopt_owner`` (``store.sessions.adopt_owner``) re-keys them, in one transaction, for that user only: the
acting user's own key must be ``ISSUER#SUBJECT`` for that very subject, and the app calls it only for ``[auth]``'s
own provider. A memory's
duplicate key holds its owner, so each adopted memory is hashed again; one the user already holds under the new
key (saved since) is not kept twice.
"""

from __future__ import annotations

import logging

from sqlalchemy import column, func, table
from sqlmodel import Session, col, select, update

from agent_core.store.actors import ISSUER_SEP
from agent_core.store.memory_index import text_hash
from agent_core.store.tables import MemoryRow, SessionRow, ShareLinkRow, SnapshotRow
from agent_core.store.transactions import StoreAccess

log = logging.getLogger(__name__)

_DATASETS = table("datasets", column("id"), column("owner"), column("name"), column("version"))
_EXPERIMENTS = table("experiments", column("owner"))
"""The experiment tables, by name: the store does not import ``agent_core.experiments`` (it builds on the store)."""


def adopt_owner(access: StoreAccess, subject: str) -> int:
    """Make what ``subject`` (bare) owns the acting user's; the number of rows re-keyed.

    Raises PermissionError unless the actor's owner key is ``ISSUER#subject``.
    """
    key = access.actor.owner
    if access.actor.read_only or key is None or not key.endswith(ISSUER_SEP + subject) or key == subject:
        raise PermissionError("only the signed-in user with this subject may adopt its data")
    changed = 0
    with access.write() as db:
        for table in (SessionRow, SnapshotRow):
            changed += db.exec(update(table).where(col(table.owner) == subject).values(owner=key)).rowcount
        changed += adopt_memories(db, subject, key) + adopt_datasets(db, subject, key)
        changed += db.exec(update(_EXPERIMENTS).where(_EXPERIMENTS.c.owner == subject).values(owner=key)).rowcount
        statement = update(ShareLinkRow).where(col(ShareLinkRow.created_by) == subject).values(created_by=key)
        changed += db.exec(statement).rowcount
        db.commit()
    if changed:
        log.info("%d rows of subject %s re-keyed to %s", changed, subject, key)
    return changed


def adopt_memories(db: Session, old: str, new: str) -> int:
    """Give ``old``'s memories to ``new``, each with the duplicate key of its new owner; how many were re-keyed.

    A fact ``new`` already holds in the same scope is not adopted twice: the old copy is deleted.
    """
    adopted = 0
    for row in db.exec(select(MemoryRow).where(col(MemoryRow.owner) == old)).all():
        key = text_hash(row.text, new)
        taken = select(MemoryRow.id).where(col(MemoryRow.scope) == row.scope, col(MemoryRow.text_hash) == key)
        if db.exec(taken).first() is not None:
            db.delete(row)
            continue
        row.owner, row.text_hash, adopted = new, key, adopted + 1
        db.add(row)
    db.flush()
    return adopted


def adopt_datasets(db: Session, old: str, new: str) -> int:
    """Give ``old``'s datasets to ``new``; a version ``new`` already has of the same name becomes the next one."""
    rows = db.exec(select(_DATASETS.c.id, _DATASETS.c.name, _DATASETS.c.version).where(_DATASETS.c.owner == old))
    adopted = 0
    for dataset_id, name, version in sorted(rows.all(), key=lambda r: (r[1], r[2])):
        latest = select(func.max(_DATASETS.c.version)).where(_DATASETS.c.owner == new, _DATASETS.c.name == name)
        taken = db.exec(latest).one()
        number = version if taken is None or taken < version else taken + 1
        db.exec(update(_DATASETS).where(_DATASETS.c.id == dataset_id).values(owner=new, version=number))
        adopted += 1
    return adopted
