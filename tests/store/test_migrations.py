"""Schema migrations: the baseline builds the models' schema, a database at the old head is current, under a lock.

tests/store/data/head_0008.* are databases made by main at e700bd5, the last build before 0001-0008 were squashed into
the baseline: sessions with runs, a fork, an imported copy, an interrupted run, snapshots, share links, memories, a
dataset and a judged experiment (SQLite: the file itself, gzipped; PostgreSQL: pg_dump --inserts).
"""

from __future__ import annotations

import gzip
import multiprocessing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text
from sqlmodel import SQLModel

from agent_core.cli import main
from agent_core.events import RunFinished
from agent_core.experiments import (
    get_experiment,
    tables,  # noqa: F401  (the models hold these tables too)
)
from agent_core.longterm import MemoryStore
from agent_core.store import Actor, SchemaVersionError, SessionStore
from agent_core.store.database import (
    HEAD_REVISION,
    OLD_HEAD,
    VERSION_TABLE,
    alembic_head,
    head_revision,
    known_revisions,
    schema_state,
    upgrade_database,
)
from tests.postgres import execute

DATA = Path(__file__).parent / "data"


def test_the_head_a_database_is_checked_against_without_alembic_is_alembics_own() -> None:
    assert HEAD_REVISION == alembic_head() == known_revisions()[-1]  # a new revision moves HEAD_REVISION with it


def test_the_revisions_build_exactly_the_models_schema(empty_db_url: str) -> None:
    assert upgrade_database(empty_db_url)[0].revision is None
    engine = create_engine(empty_db_url)
    with engine.connect() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
    engine.dispose()
    # Only tables the models do not describe may differ: SQLite's full-text index and the revision table.
    # ...and PostgreSQL's trigram index for memory search (an expression index the models do not declare).
    extra = {d[1].name for d in differences if d[0] == "remove_table"}
    indexes = {d[1].name for d in differences if d[0] == "remove_index"}
    assert [d for d in differences if d[0] not in ("remove_table", "remove_index")] == []
    assert indexes <= {"ix_memories_text_trgm"}
    assert extra <= {
        VERSION_TABLE,
        "memories_fts",
        *(f"memories_fts_{s}" for s in ("data", "idx", "docsize", "config")),
    }


def _open_and_write(url: str, start: Any, results: Any) -> None:
    """In a child process: open the empty database together with the others, then write to it."""
    try:
        start.wait(timeout=30)
        store = SessionStore.open(url)
        session = store.sessions.create(title="new")
        store.log.append(session.id, [RunFinished(run_id="r", ts=1.0, status="completed")])
        store.close()
        results.put(None)
    except BaseException as exc:
        results.put(f"{type(exc).__name__}: {exc}")


def test_ten_processes_opening_an_empty_database_together_all_succeed(empty_db_url: str) -> None:
    context = multiprocessing.get_context("fork")
    start, results = context.Barrier(10), context.Queue()
    processes = [context.Process(target=_open_and_write, args=(empty_db_url, start, results)) for _ in range(10)]
    for process in processes:
        process.start()
    try:
        outcomes = [results.get(timeout=90) for _ in processes]
    finally:
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
    assert outcomes == [None] * 10
    after = every_row(empty_db_url)
    assert len(after["sessions"]) == 10 and len(after["events"]) == 10
    assert schema_state(empty_db_url).revision == head_revision()


def test_a_database_from_a_newer_sparrow_is_refused_and_left_untouched(file_db_url: str) -> None:
    SessionStore.open(file_db_url).close()
    execute(file_db_url, f"UPDATE {VERSION_TABLE} SET version_num = '9999_future'")
    before = every_row(file_db_url)
    with pytest.raises(SchemaVersionError) as info:
        SessionStore.open(file_db_url)
    assert "newer Sparrow (schema revision 9999_future)" in str(info.value) and "DATABASE_URL" in str(info.value)
    assert every_row(file_db_url) == before
    engine = create_engine(file_db_url)
    assert inspect(engine).has_table(VERSION_TABLE)
    engine.dispose()


def test_db_upgrade_and_current(capsys: pytest.CaptureFixture[str], empty_db_url: str) -> None:
    def sparrow(*args: str) -> tuple[int, str, str]:
        code = main([*args, "--db", empty_db_url])
        out, err = capsys.readouterr()
        return code, out, err

    head = head_revision()
    assert sparrow("db", "current") == (
        1,
        f"empty (this build's head is {head}: run `python -m agent_core db upgrade`)\n",
        "",
    )
    assert sparrow("db", "upgrade") == (0, f"empty -> {head}\n", "")
    assert sparrow("db", "upgrade") == (0, f"already at {head}\n", "")
    assert sparrow("db", "current") == (0, f"{head} (head)\n", "")
    execute(empty_db_url, f"UPDATE {VERSION_TABLE} SET version_num = '9999_future'")
    code, out, err = sparrow("db", "current")
    assert (code, out) == (1, "") and "newer Sparrow (schema revision 9999_future)" in err and err.count("\n") == 1
    assert sparrow("db", "upgrade")[0::2] == (1, err)


def test_tables_of_the_same_names_made_by_another_app_are_refused(empty_db_url: str) -> None:
    if empty_db_url.startswith("sqlite"):
        Path(empty_db_url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    execute(empty_db_url, "CREATE TABLE sessions (owner TEXT, cookie TEXT)")
    with pytest.raises(SchemaVersionError, match="sessions that Sparrow did not create; set DATABASE_URL"):
        SessionStore.open(empty_db_url)
    with pytest.raises(SchemaVersionError):
        upgrade_database(empty_db_url)
    assert schema_state_or_none(empty_db_url) is None


def schema_state_or_none(url: str) -> str | None:
    """The revision table's presence: None when nothing was written."""
    engine = create_engine(url)
    try:
        return VERSION_TABLE if inspect(engine).has_table(VERSION_TABLE) else None
    finally:
        engine.dispose()


def load_old_head(url: str) -> None:
    """Fill an empty database with one made at the old head (tests/store/data/head_0008.*)."""
    if url.startswith("sqlite"):
        path = Path(url.removeprefix("sqlite:///"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.decompress((DATA / "head_0008.sqlite.gz").read_bytes()))
        return
    engine = create_engine(url)
    raw = engine.raw_connection()  # the driver's own cursor: no parameters, so a '%' in the dump's rows is text
    try:
        raw.cursor().execute((DATA / "head_0008.postgresql.sql").read_text())
        raw.commit()
    finally:
        raw.close()
        engine.dispose()


def every_row(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table but the revision's, in a stable order."""
    engine = create_engine(url)
    with engine.connect() as conn:
        names = sorted(set(inspect(conn).get_table_names()) - {VERSION_TABLE})
        rows = {t: sorted(map(repr, conn.execute(text(f'SELECT * FROM "{t}"')))) for t in names}
    engine.dispose()
    return rows


def schema_of(url: str) -> dict[str, Any]:
    """Each table's columns (name, type, nullable), primary key, foreign keys, indexes and unique constraints."""
    engine = create_engine(url)
    with engine.connect() as conn:
        found = inspect(conn)
        names = sorted(set(found.get_table_names()) - {VERSION_TABLE, "sparrow_schema"})
        schema = {
            t: (
                sorted((c["name"], str(c["type"]), c["nullable"]) for c in found.get_columns(t)),
                found.get_pk_constraint(t)["constrained_columns"],
                sorted(
                    (f["constrained_columns"], f["referred_table"], f["options"].get("ondelete"))
                    for f in found.get_foreign_keys(t)
                ),
                sorted((i["name"], i["column_names"], i["unique"]) for i in found.get_indexes(t)),
                sorted(u["column_names"] for u in found.get_unique_constraints(t)),
            )
            for t in names
        }
    engine.dispose()
    return schema


def test_a_database_at_the_old_head_is_current_and_loses_nothing(
    empty_db_url: str, new_db_url: Callable[..., str]
) -> None:
    load_old_head(empty_db_url)
    before = every_row(empty_db_url)
    assert len(before["sessions"]) == 8 and len(before["events"]) == 76 and len(before["memories"]) == 3
    store = SessionStore.open(empty_db_url)
    assert every_row(empty_db_url) == before  # recognised as current: opening it changed nothing
    listed = store.sessions.list()
    sessions = {s.title: s for s in listed if s.imported_at is None}
    talk = sessions["What is 6*7?"]
    assert [e.final_answer for e in store.log.events(talk.id) if isinstance(e, RunFinished)] == ["42", "50"]
    [copy] = [s for s in listed if s.imported_at is not None]
    assert store.log.events(copy.id) == store.log.events(talk.id)
    interrupted = store.runs.interrupted(sessions["interrupted"].id)
    assert interrupted is not None and interrupted.question == "What is 7*8?"
    [snapshot] = store.snapshots.list(talk.id)
    assert len(store.snapshots.events(snapshot.id)) < len(store.log.events(talk.id))
    assert [link.state for link in store.shares.list(talk.id)] == ["active", "active"]
    alice = store.acting_as(Actor.user("https://issuer.example#alice"))
    assert [m.text for m in MemoryStore(store.engine, actor=alice.actor).search("green tea")] == [
        "The user prefers green tea over coffee"
    ]
    [experiment] = [get_experiment(alice, row[0]) for row in every_row_ids(empty_db_url, "experiments")]
    assert experiment.status == "finished" and experiment.judge is not None and experiment.judge.name == "judge"
    new = store.sessions.create(title="after the squash")
    store.log.append(new.id, [RunFinished(run_id="r", ts=1.0, status="completed")])
    store.close()
    assert main(["db", "current", "--db", empty_db_url]) == 0  # current as it is
    assert main(["db", "upgrade", "--db", empty_db_url]) == 0  # records it as the baseline
    after = every_row(empty_db_url)
    assert {t: [r for r in rows if r in after[t]] for t, rows in before.items()} == before
    assert schema_state(empty_db_url).revision == head_revision()
    fresh = new_db_url(empty=True)
    SessionStore.open(fresh).close()
    assert schema_of(empty_db_url) == schema_of(fresh)  # the baseline builds the very schema of the old head


def every_row_ids(url: str, table: str) -> list[tuple[Any, ...]]:
    """The ids of a table's rows."""
    engine = create_engine(url)
    with engine.connect() as conn:
        ids = [tuple(r) for r in conn.execute(text(f"SELECT id FROM {table}"))]
    engine.dispose()
    return ids


@pytest.mark.parametrize("revision", ["0001_baseline", "0007_owner_issuer", None])
def test_a_database_of_an_earlier_pre_release_is_refused_and_left_untouched(
    empty_db_url: str, revision: str | None
) -> None:
    load_old_head(empty_db_url)
    if revision is None:  # made before migrations: only sparrow_schema said it was Sparrow's
        execute(empty_db_url, f"DROP TABLE {VERSION_TABLE}")
    else:
        execute(empty_db_url, f"UPDATE {VERSION_TABLE} SET version_num = '{revision}'")
    before = every_row(empty_db_url)
    with pytest.raises(SchemaVersionError) as info:
        SessionStore.open(empty_db_url)
    made = f"schema revision {revision}" if revision else "before migrations"
    assert f"made by a pre-release Sparrow ({made})" in str(info.value) and OLD_HEAD in str(info.value)
    assert every_row(empty_db_url) == before
