"""For bench/store.py: the raw psycopg floor on PostgreSQL, a throwaway durable cluster, and N concurrent runs.

Every floor does by hand what the store does, with the driver alone: the same statements, one transaction per
append, one SELECT to load, ``executemany`` (psycopg's pipelined batch) to import.
"""

from __future__ import annotations

import json
import multiprocessing
import time
from collections import Counter
from typing import Any

import psycopg

from agent_core import Agent
from agent_core.events import ModelDelta
from agent_core.models.chat import Message, ModelRequest
from agent_core.runtime.session_runs import run_in_session
from agent_core.store import SessionStore
from agent_core.testing import FunctionModel

Row = tuple[str, str, float, str]
"""run_id, type, ts, payload."""

PG_SCHEMA = """
CREATE TABLE sessions (id TEXT PRIMARY KEY, last_seq INTEGER NOT NULL, updated_at DOUBLE PRECISION NOT NULL);
CREATE TABLE events (session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, seq INTEGER NOT NULL,
    run_id TEXT NOT NULL, type TEXT NOT NULL, ts DOUBLE PRECISION NOT NULL, payload TEXT NOT NULL,
    PRIMARY KEY (session_id, seq));
INSERT INTO sessions VALUES ('s', 0, 0);
"""
_INSERT = "INSERT INTO events VALUES (%s, %s, %s, %s, %s, %s)"


def dsn(url: str) -> str:
    """A libpq connection string from a SQLAlchemy ``postgresql+psycopg://`` URL."""
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


class PostgresFloor:
    """The raw psycopg floor: the store's two tables, in a schema of their own in the database at ``url``."""

    name = "raw psycopg"

    def __init__(self, url: str) -> None:
        self.conn = psycopg.connect(dsn(url), autocommit=True)
        self.conn.execute("DROP SCHEMA IF EXISTS bench_raw CASCADE")
        self.conn.execute("CREATE SCHEMA bench_raw")  # beside Sparrow's own tables of the same names
        self.conn.execute("SET search_path = bench_raw")
        self.conn.execute(PG_SCHEMA)

    def appends(self, rows: list[Row]) -> list[float]:
        """Milliseconds of each append by hand: reserve the number, insert, commit."""
        samples = []
        for run_id, kind, ts, payload in rows:
            started = time.perf_counter()
            with self.conn.transaction():
                (seq,) = self.conn.execute(
                    "UPDATE sessions SET last_seq = last_seq + 1, updated_at = %s WHERE id = 's' RETURNING last_seq",
                    (ts,),
                ).fetchone()  # type: ignore[misc]
                self.conn.execute(_INSERT, ("s", seq, run_id, kind, ts, payload))
            samples.append((time.perf_counter() - started) * 1000)
        return samples

    def fill(self, rows: list[Row], session_id: str = "s2") -> None:  # "s" holds the appended rows
        """One session holding all rows, written in one transaction."""
        with self.conn.transaction(), self.conn.cursor() as cursor:
            cursor.execute("INSERT INTO sessions VALUES (%s, %s, 0)", (session_id, len(rows)))
            cursor.executemany(_INSERT, [(session_id, i + 1, *row) for i, row in enumerate(rows)])

    def select(self) -> list[str]:
        """One SELECT of the payloads, in order."""
        return [r[0] for r in self.conn.execute("SELECT payload FROM events WHERE session_id = 's2' ORDER BY seq")]

    def export(self) -> bytes:
        """The event lines of a session file, by hand."""
        rows = self.conn.execute("SELECT seq, payload FROM events WHERE session_id = 's2' ORDER BY seq")
        return ",\n".join(f'    {{"seq":{seq},{payload[1:]}' for seq, payload in rows).encode()

    def import_(self, data: bytes) -> None:
        """Parse a session file and insert its events as a new session, nothing checked."""
        session_id = f"s{time.perf_counter_ns()}"
        events = json.loads(data)["events"]
        params = [
            (session_id, e.pop("seq"), e["run_id"], e["type"], e["ts"], json.dumps(e, ensure_ascii=False))
            for e in events
        ]
        with self.conn.transaction(), self.conn.cursor() as cursor:
            cursor.execute("INSERT INTO sessions VALUES (%s, %s, 0)", (session_id, len(params)))
            cursor.executemany(_INSERT, params)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()


def calculator_model(messages: list[Message], request: ModelRequest) -> str:
    """One tool step, then the answer."""
    last = messages[-1]["content"]
    if last.startswith("Observation: "):
        return f"Thought: I have it.\nFinal Answer: {last.removeprefix('Observation: ')}"
    return 'Thought: multiply\nAction: calculator\nAction Input: {"expression": "6*7"}'


def _one_run(url: str, questions: int, start: Any, results: Any) -> None:
    """In a child process: open the store, make a session, run ``questions`` recorded runs in it."""
    try:
        store = SessionStore.open(url)
        session_id = store.sessions.create().id
        agent = Agent(FunctionModel(calculator_model, name="bench"))
        start.wait(timeout=60)
        yielded = []
        for n in range(questions):
            events = run_in_session(store, session_id, agent, f"What is 6*7? ({n})")
            yielded += [(e.run_id, e.type, e.ts) for e in events if not isinstance(e, ModelDelta)]
        store.close()
        results.put((session_id, yielded, None))
    except BaseException as exc:
        results.put((None, [], f"{type(exc).__name__}: {exc}"))


def concurrent_runs(url: str, runs: int = 10, questions: int = 20) -> dict[str, float]:
    """``runs`` processes recording runs into one database at once; counts lost and duplicated events."""
    context = multiprocessing.get_context("fork")
    start, results = context.Barrier(runs + 1), context.Queue()
    processes = [context.Process(target=_one_run, args=(url, questions, start, results)) for _ in range(runs)]
    for process in processes:
        process.start()
    start.wait(timeout=60)
    began = time.perf_counter()
    outcomes = [results.get(timeout=600) for _ in processes]
    seconds = time.perf_counter() - began
    for process in processes:
        process.join(timeout=30)
    errors = [error for _, _, error in outcomes if error]
    store = SessionStore.open(url)
    lost = duplicated = total = 0
    for session_id, yielded, _ in outcomes:
        if session_id is None:
            continue
        stored = store.log.stored_events(session_id)
        stored_keys = Counter((e.run_id, e.type, e.ts) for e in stored)
        lost += sum((Counter(yielded) - stored_keys).values())
        duplicated += sum((stored_keys - Counter(yielded)).values())
        duplicated += len(stored) - len({e.seq for e in stored})
        total += len(stored)
    store.close()
    return {"events": total, "lost": lost, "duplicated": duplicated, "errors": len(errors), "seconds": seconds}
