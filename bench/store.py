"""Store speed: durable append latency, loading a 10,000-event session, export and import — each beside raw sqlite3.

The events come from the real agent loop (a fake model, the calculator, the react protocol), so their
sizes are what a session really stores: ``ModelFinished`` carries the exact messages sent to the model.
A second workload drops those prompt copies to show the store's own cost on small events.

    python bench/store.py [--events 10000] [--workload real|compact|both]
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import platform
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agent_core import Agent
from agent_core.events import Event, ModelDelta, ModelFinished
from agent_core.models.base import Message, ModelRequest
from agent_core.store import SessionStore, export_session, import_session
from agent_core.store.codec import encode, gc_paused
from agent_core.testing import FunctionModel

Row = tuple[str, str, float, str]
"""run_id, type, ts, payload."""
TARGETS = {"append_p50_ms": 1.0, "load_ms": 150.0, "load_ratio": 3.0, "export_ms": 300.0, "import_ms": 300.0}


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
    """Milliseconds of each ``SessionStore.append`` of one event (one committed transaction each)."""
    samples = []
    for event in events:
        started = time.perf_counter()
        store.append(session_id, [event])
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


def raw_bulk_insert(path: Path, rows: list[Row]) -> float:
    """Milliseconds per event of one executemany of all rows in one transaction (the bulk floor)."""
    conn = raw_connection(path)
    params = [("s", i + 1, *row) for i, row in enumerate(rows)]
    started = time.perf_counter()
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)", params)
    conn.execute("COMMIT")
    elapsed = (time.perf_counter() - started) * 1000
    conn.close()
    return elapsed / len(rows)


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


def line(label: str, ms: float, floor: float | None = None, extra: str = "") -> None:
    """One result: label, milliseconds, and the ratio to the floor when given."""
    ratio = f"   {ms / floor:5.1f}× the floor" if floor else ""
    print(f"  {label:<56}{ms:8.1f} ms{extra}{ratio}" if ms >= 10 else f"  {label:<56}{ms:8.3f} ms{extra}{ratio}")


def measure_appends(store: SessionStore, events: list[Event], rows: list[Row], folder: Path) -> tuple[str, float]:
    """Append every event one by one (store and raw), print p50/p99; returns the session id and our p50."""
    session_id = store.create_session().id
    ours = percentiles(store_appends(store, session_id, events))
    raw_conn = raw_connection(folder / "raw-append.db")
    floor = percentiles(raw_appends(raw_conn, rows))
    raw_conn.close()
    print("append one event in its own committed transaction (p50, then p99)")
    line("SessionStore.append", ours[0], floor[0], f"  p99 {ours[1]:6.3f} ms")
    line("raw sqlite3, same two statements + COMMIT", floor[0], None, f"  p99 {floor[1]:6.3f} ms")
    line(
        "raw sqlite3 executemany, all in one commit", raw_bulk_insert(folder / "raw-bulk.db", rows), None, " per event"
    )
    return session_id, ours[0]


def measure_load(store: SessionStore, session_id: str, raw_conn: sqlite3.Connection, count: int) -> tuple[float, float]:
    """Load the whole session (store and raw); returns (our ms, ratio to the SELECT + json.loads floor)."""
    load = timed(lambda: store.events(session_id))
    select_loads = timed(lambda: [json.loads(p) for p in raw_select(raw_conn)])
    print(f"load the {count:,}-event session")
    line("SessionStore.events (validated Event objects)", load, select_loads)
    line("raw sqlite3: one SELECT + json.loads (floor)", select_loads)
    line("raw sqlite3: one SELECT, rows only", timed(lambda: raw_select(raw_conn)))
    return load, load / select_loads


def measure_files(
    store: SessionStore, session_id: str, raw_conn: sqlite3.Connection, folder: Path
) -> tuple[float, float]:
    """Export and import the session (store and raw); returns (export ms, import ms)."""
    data = export_session(store, session_id)
    other = SessionStore.open(f"sqlite:///{folder / 'import.db'}")
    export = timed(lambda: export_session(store, session_id))
    imported = timed(lambda: import_session(other, data), repeat=3)
    other.close()
    export_floor = timed(lambda: raw_export(raw_conn))
    import_floor = timed(lambda: raw_import(raw_conn, data), repeat=3)
    print(f"export / import ({len(data) / 1e6:.1f} MB file)")
    line("export_session", export, export_floor)
    line("raw sqlite3: SELECT + the same event lines (floor)", export_floor)
    line("import_session (parse, validate, write atomically)", imported, import_floor)
    line("raw: json.loads + executemany, nothing checked (floor)", import_floor)
    return export, imported


def bench(workload: str, count: int, folder: Path) -> dict[str, float]:
    """Run every measurement for one workload and print it; returns the numbers checked against the targets."""
    events = agent_events(count, compact=workload == "compact")
    rows = [(e.run_id, e.type, e.ts, encode(e)) for e in events]
    gc.collect()
    gc.freeze()  # the benchmark's own copies of the events are not what a collection should be timed on
    size = sum(len(r[3].encode()) for r in rows)
    print(f"\n== {workload}: {count:,} events, {size / count:,.0f} B/event on average, {size / 1e6:.1f} MB ==")
    store = SessionStore.open(f"sqlite:///{folder / 'store.db'}")
    session_id, append_p50 = measure_appends(store, events, rows, folder)
    assert store.events(session_id) == events
    raw_conn = raw_connection(folder / "raw.db")
    with raw_conn:
        raw_conn.execute("BEGIN")
        raw_conn.executemany(
            "INSERT INTO events VALUES ('s', ?, ?, ?, ?, ?)", [(i + 1, *r) for i, r in enumerate(rows)]
        )
    load, load_ratio = measure_load(store, session_id, raw_conn, count)
    export, imported = measure_files(store, session_id, raw_conn, folder)
    store.close()
    raw_conn.close()
    gc.unfreeze()
    return {
        "append_p50_ms": append_p50,
        "load_ms": load,
        "load_ratio": load_ratio,
        "export_ms": export,
        "import_ms": imported,
    }


def verdict(results: dict[str, float]) -> str:
    """Which targets were met."""
    marks = {k: "ok" if results[k] <= limit else "MISSED" for k, limit in TARGETS.items()}
    return ", ".join(f"{k} {results[k]:.2f} ({marks[k]} ≤ {limit:g})" for k, limit in TARGETS.items())


def main() -> None:
    """Print the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--workload", choices=("real", "compact", "both"), default="both")
    args = parser.parse_args()
    print(f"Python {platform.python_version()} · SQLite {sqlite3.sqlite_version} · WAL, synchronous=NORMAL")
    workloads = ("real", "compact") if args.workload == "both" else (args.workload,)
    results = {}
    for workload in workloads:
        with tempfile.TemporaryDirectory() as tmp:
            results[workload] = bench(workload, args.events, Path(tmp))
    print("\ntargets:")
    for workload, numbers in results.items():
        print(f"  {workload}: {verdict(numbers)}")


if __name__ == "__main__":
    main()
