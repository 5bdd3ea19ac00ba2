"""Store speed on SQLite and PostgreSQL: durable append, loading a 10,000-event session, export and import — each
beside the raw driver (sqlite3, psycopg) — and 10 concurrent runs into one database with no event lost or doubled.

The events come from the real agent loop (a fake model, the calculator, the react protocol), so their
sizes are what a session really stores: ``ModelFinished`` carries the exact messages sent to the model.
A second workload drops those prompt copies to show the store's own cost on small events.

PostgreSQL: ``--pg-url URL``, else a throwaway cluster with default (durable) settings, reached over its Unix
socket (needs Debian's postgresql and ``pip install -e '.[postgres]'``).

    python bench/store.py [--events 10000] [--workload real|compact|both] [--backends sqlite,postgresql]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import json
import platform
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
from store_backends import PostgresFloor, concurrent_runs, dsn

from agent_core import Agent
from agent_core.events import Event, ModelDelta, ModelFinished
from agent_core.models.chat import Message, ModelRequest
from agent_core.store import SessionStore, export_session, import_session
from agent_core.store.log import encode, gc_paused
from agent_core.testing import FunctionModel
from agent_core.testing.pg_cluster import Cluster, find_bin_dir

Row = tuple[str, str, float, str]
"""run_id, type, ts, payload."""
TARGETS = {"append_p50_ms": 1.0, "load_ms": 150.0, "load_ratio": 1.5, "export_ms": 300.0, "import_ratio": 1.5}
PG_TARGETS = {**TARGETS, "append_p50_ms": 2.0}
"""Issue 11: load and import within 1.5× of the raw floor on both backends, append p50 ≤ 2 ms on PostgreSQL."""


def calculator_model(messages: list[Message], request: ModelRequest) -> str:
    """One tool step, then the answer."""
    last = messages[-1]["content"]
    if last.startswith("Observation: "):
        return f"Thought: I have it.\nFinal Answer: {last.removeprefix('Observation: ')}"
    return 'Thought: multiply\nAction: calculator\nAction Input: {"expression": "6*7"}'


def agent_events(count: int, compact: bool) -> list[Event]:
    """``count`` stored-kind events (no deltas) from real runs; ``compact`` drops the prompt copies."""
    agent = Agent(FunctionModel(calculator_model, name="bench"))
    events: list[Event] = []
    n = 0
    while len(events) < count:
        events += [e for e in agent.run(f"What is 6*7? (question {n})") if not isinstance(e, ModelDelta)]
        n += 1
    if compact:
        events = [dataclasses.replace(e, messages=()) if isinstance(e, ModelFinished) else e for e in events]
    return events[:count]


def timed(work: Callable[[], object], repeat: int = 5) -> float:
    """Median milliseconds of ``work()``, with the garbage collector paused as the store pauses it for bulk work."""
    times = []
    for _ in range(repeat):
        with gc_paused():
            started = time.perf_counter()
            work()
            times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def percentiles(samples: list[float]) -> tuple[float, float]:
    """(p50, p99) of milliseconds."""
    cuts = statistics.quantiles(samples, n=100)
    return statistics.median(samples), cuts[98]


def store_appends(store: SessionStore, session_id: str, events: list[Event]) -> list[float]:
    """Milliseconds of each ``SessionStore.log.append`` of one event (one committed transaction each)."""
    samples = []
    for event in events:
        started = time.perf_counter()
        store.log.append(session_id, [event])
        samples.append((time.perf_counter() - started) * 1000)
    return samples


RAW_SCHEMA = """
CREATE TABLE sessions (id TEXT PRIMARY KEY, last_seq INTEGER NOT NULL, updated_at REAL NOT NULL);
CREATE TABLE events (session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, seq INTEGER NOT NULL,
    run_id TEXT NOT NULL, type TEXT NOT NULL, ts REAL NOT NULL, payload TEXT NOT NULL, PRIMARY KEY (session_id, seq));
INSERT INTO sessions VALUES ('s', 0, 0);
"""


def raw_connection(path: Path) -> sqlite3.Connection:
    """A plain sqlite3 connection with the store's settings (WAL, synchronous=NORMAL, foreign keys)."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.executescript(RAW_SCHEMA)
    return conn


def raw_appends(conn: sqlite3.Connection, rows: list[Row]) -> list[float]:
    """Milliseconds of the same append by hand: reserve the number, insert, commit — one transaction per event."""
    samples = []
    for run_id, kind, ts, payload in rows:
        started = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        (seq,) = conn.execute(
            "UPDATE sessions SET last_seq = last_seq + 1, updated_at = ? WHERE id = 's' RETURNING last_seq", (ts,)
        ).fetchone()
        conn.execute("INSERT INTO events VALUES ('s', ?, ?, ?, ?, ?)", (seq, run_id, kind, ts, payload))
        conn.execute("COMMIT")
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def raw_select(conn: sqlite3.Connection) -> list[str]:
    """One SELECT of the payloads, in order."""
    return [r[0] for r in conn.execute("SELECT payload FROM events WHERE session_id = 's' ORDER BY seq")]


def raw_export(conn: sqlite3.Connection) -> bytes:
    """The event lines of a session file, by hand: one SELECT, the sequence number spliced into each payload."""
    rows = conn.execute("SELECT seq, payload FROM events WHERE session_id = 's' ORDER BY seq")
    return ",\n".join(f'    {{"seq":{seq},{payload[1:]}' for seq, payload in rows).encode()


def raw_import(conn: sqlite3.Connection, data: bytes) -> None:
    """Parse a session file and insert its events as a new session, by hand, with no validation at all."""
    session_id = f"s{time.perf_counter_ns()}"
    events = json.loads(data)["events"]
    params = [
        (session_id, e.pop("seq"), e["run_id"], e["type"], e["ts"], json.dumps(e, ensure_ascii=False)) for e in events
    ]
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO sessions VALUES (?, ?, 0)", (session_id, len(params)))
    conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)", params)
    conn.execute("COMMIT")


class SqliteFloor:
    """The raw sqlite3 floor, with the same interface as ``store_backends.PostgresFloor``."""

    name = "raw sqlite3"

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.conn = raw_connection(folder / "raw.db")

    def appends(self, rows: list[Row]) -> list[float]:
        """See ``raw_appends`` (in a database of its own)."""
        conn = raw_connection(self.folder / "raw-append.db")
        try:
            return raw_appends(conn, rows)
        finally:
            conn.close()

    def fill(self, rows: list[Row]) -> None:
        """The loaded session's rows, in one transaction."""
        with self.conn:
            self.conn.execute("BEGIN")
            self.conn.executemany(
                "INSERT INTO events VALUES ('s', ?, ?, ?, ?, ?)", [(i + 1, *r) for i, r in enumerate(rows)]
            )

    def select(self) -> list[str]:
        """See ``raw_select``."""
        return raw_select(self.conn)

    def export(self) -> bytes:
        """See ``raw_export``."""
        return raw_export(self.conn)

    def import_(self, data: bytes) -> None:
        """See ``raw_import``."""
        raw_import(self.conn, data)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()


Floor = SqliteFloor | PostgresFloor


def line(label: str, ms: float, floor: float | None = None, extra: str = "") -> None:
    """One result: label, milliseconds, and the ratio to the floor when given."""
    ratio = f"   {ms / floor:5.1f}× the floor" if floor else ""
    print(f"  {label:<56}{ms:8.1f} ms{extra}{ratio}" if ms >= 10 else f"  {label:<56}{ms:8.3f} ms{extra}{ratio}")


def measure_appends(
    store: SessionStore, events: list[Event], rows: list[Row], floor: Floor
) -> tuple[str, float, float]:
    """Append every event one by one (store and raw), print p50/p99; returns the session id, our p50, the floor's."""
    session_id = store.sessions.create().id
    ours = percentiles(store_appends(store, session_id, events))
    raw = percentiles(floor.appends(rows))
    print("append one event in its own committed transaction (p50, then p99)")
    line("SessionStore.log.append", ours[0], raw[0], f"  p99 {ours[1]:6.3f} ms")
    line(f"{floor.name}, same two statements + COMMIT", raw[0], None, f"  p99 {raw[1]:6.3f} ms")
    return session_id, ours[0], raw[0]


def measure_load(store: SessionStore, session_id: str, floor: Floor, count: int) -> tuple[float, float]:
    """Load the whole session (store and raw); returns (our ms, the SELECT + json.loads floor's ms)."""
    load = timed(lambda: store.log.events(session_id))
    select_loads = timed(lambda: [json.loads(p) for p in floor.select()])
    print(f"load the {count:,}-event session")
    line("SessionStore.log.events (validated Event objects)", load, select_loads)
    line(f"{floor.name}: one SELECT + json.loads (floor)", select_loads)
    line(f"{floor.name}: one SELECT, rows only", timed(floor.select))
    return load, select_loads


def measure_files(store: SessionStore, session_id: str, floor: Floor, import_url: str) -> tuple[float, ...]:
    """Export and import the session (store and raw); returns (export, its floor, import, its floor) in ms."""
    data = export_session(store, session_id)
    other = SessionStore.open(import_url)
    export = timed(lambda: export_session(store, session_id))
    imported = timed(lambda: import_session(other, data), repeat=3)
    other.close()
    export_floor = timed(floor.export)
    import_floor = timed(lambda: floor.import_(data), repeat=3)
    print(f"export / import ({len(data) / 1e6:.1f} MB file)")
    line("export_session", export, export_floor)
    line(f"{floor.name}: SELECT + the same event lines (floor)", export_floor)
    line("import_session (parse, validate, write atomically)", imported, import_floor)
    line(f"{floor.name}: json.loads + executemany, nothing checked (floor)", import_floor)
    return export, export_floor, imported, import_floor


def bench(events: list[Event], urls: tuple[str, str], floor: Floor) -> dict[str, float]:
    """Every measurement on one backend (``urls``: the store's database and an import target), printed."""
    rows = [(e.run_id, e.type, e.ts, encode(e)) for e in events]
    gc.collect()
    gc.freeze()  # the benchmark's own copies of the events are not what a collection should be timed on
    store = SessionStore.open(urls[0])
    session_id, append_p50, append_floor = measure_appends(store, events, rows, floor)
    assert store.log.events(session_id) == events
    floor.fill(rows)
    load, load_floor = measure_load(store, session_id, floor, len(events))
    export, export_floor, imported, import_floor = measure_files(store, session_id, floor, urls[1])
    store.close()
    gc.unfreeze()
    return {
        "append_p50_ms": append_p50,
        "append_floor_ms": append_floor,
        "load_ms": load,
        "load_ratio": load / load_floor,
        "export_ms": export,
        "export_ratio": export / export_floor,
        "import_ms": imported,
        "import_ratio": imported / import_floor,
    }


def verdict(results: dict[str, float], targets: dict[str, float]) -> str:
    """Which targets were met."""
    marks = {k: "ok" if results[k] <= limit else "MISSED" for k, limit in targets.items()}
    return ", ".join(f"{k} {results[k]:.2f} ({marks[k]} ≤ {limit:g})" for k, limit in targets.items())


@contextlib.contextmanager
def postgres(url: str | None) -> Iterator[str]:
    """``url``, else a database in a throwaway durable cluster reached over its Unix socket."""
    if url:
        yield url
        return
    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise SystemExit("PostgreSQL server binaries not found: apt-get install postgresql, or pass --pg-url")
    cluster = Cluster(bin_dir, durable=True).start()
    try:
        with psycopg.connect(dsn(cluster.url()), autocommit=True) as admin:
            admin.execute("CREATE DATABASE bench")
        yield cluster.socket_url("bench")
    finally:
        cluster.stop()


def run_backend(backend: str, workloads: dict[str, list[Event]], pg_url: str, folder: Path) -> dict[str, Any]:
    """Every workload on one backend, then the concurrent runs; returns the numbers by workload."""
    results: dict[str, Any] = {}
    for workload, events in workloads.items():
        size = sum(len(encode(e).encode()) for e in events)
        print(f"\n== {backend} · {workload}: {len(events):,} events, {size / len(events):,.0f} B/event ==")
        where = folder / workload
        where.mkdir()
        if backend == "sqlite":
            urls, floor = (f"sqlite:///{where / 'store.db'}", f"sqlite:///{where / 'import.db'}"), SqliteFloor(where)
        else:
            urls, floor = (pg_url, pg_url), PostgresFloor(pg_url)
        results[workload] = bench(events, urls, floor)
        floor.close()
    url = f"sqlite:///{folder / 'concurrent.db'}" if backend == "sqlite" else pg_url
    results["concurrent"] = concurrent_runs(url)
    c = results["concurrent"]
    counts = f"{c['lost']} lost, {c['duplicated']} doubled, {c['errors']} failed"
    print(f"10 concurrent runs: {c['events']:,} events in {c['seconds']:.1f} s, {counts}")
    return results


def table(results: dict[str, dict[str, Any]]) -> None:
    """The side-by-side summary: one column per backend."""
    backends = list(results)
    print("\n" + f"{'':<44}" + "".join(f"{b:>22}" for b in backends))
    rows = [
        ("append p50, ms (raw driver)", "real", lambda r: f"{r['append_p50_ms']:.2f} ({r['append_floor_ms']:.2f})"),
        ("load 10k events, ms (× raw floor)", "real", lambda r: f"{r['load_ms']:.0f} ({r['load_ratio']:.2f}×)"),
        ("load, compact events (× raw floor)", "compact", lambda r: f"{r['load_ms']:.0f} ({r['load_ratio']:.2f}×)"),
        ("export, ms (× raw floor)", "real", lambda r: f"{r['export_ms']:.0f} ({r['export_ratio']:.2f}×)"),
        ("import, ms (× raw floor)", "real", lambda r: f"{r['import_ms']:.0f} ({r['import_ratio']:.2f}×)"),
    ]
    for label, workload, cell in rows:
        if all(workload in results[b] for b in backends):
            print(f"{label:<44}" + "".join(f"{cell(results[b][workload]):>22}" for b in backends))
    lost = "".join(f"{'{lost} lost, {duplicated} doubled'.format(**results[b]['concurrent']):>22}" for b in backends)
    print(f"{'10 concurrent runs into one database':<44}{lost}")


def main() -> None:
    """Print the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--workload", choices=("real", "compact", "both"), default="both")
    parser.add_argument("--backends", default="sqlite,postgresql", help="comma-separated: sqlite, postgresql")
    parser.add_argument("--pg-url", help="a PostgreSQL database to use (default: a throwaway cluster)")
    args = parser.parse_args()
    print(f"Python {platform.python_version()} · SQLite {sqlite3.sqlite_version} · WAL, synchronous=NORMAL")
    names = ("real", "compact") if args.workload == "both" else (args.workload,)
    workloads = {name: agent_events(args.events, compact=name == "compact") for name in names}
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp, postgres(args.pg_url if "postgresql" in backends else "-") as pg_url:
        for backend in backends:
            (Path(tmp) / backend).mkdir()
            results[backend] = run_backend(backend, workloads, pg_url, Path(tmp) / backend)
    table(results)
    print("\ntargets:")
    for backend, numbers in results.items():
        for workload in names:
            targets = PG_TARGETS if backend == "postgresql" else TARGETS
            print(f"  {backend} {workload}: {verdict(numbers[workload], targets)}")


if __name__ == "__main__":
    main()
