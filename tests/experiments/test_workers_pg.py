"""Workers through the PostgreSQL job queue (Procrastinate): three worker processes give the same results as one
local run, and an experiment whose worker was killed resumes without running its finished units again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import Session, select

from agent_core.experiments import ExperimentRunner, RunConfig, create_dataset, create_experiment, parse_dataset
from agent_core.experiments.example import example_file
from agent_core.experiments.runner import QUEUE_NAME, enqueue_experiment
from agent_core.experiments.tables import ResultRow
from agent_core.store import SessionStore
from agent_core.testing import FakeOpenAIServer
from agent_core.testing.rule_llm import rule_reply

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = [
    RunConfig(name="react", model="gpt-4o-mini", protocol="react"),
    RunConfig(name="tools", model="fake-model", protocol="tools"),
]


@pytest.fixture
def llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(rule_reply) as server:
        yield server


def workers(url: str, llm: FakeOpenAIServer, count: int) -> list[subprocess.Popen[bytes]]:
    env = {**os.environ, "OPENAI_BASE_URL": llm.base_url, "OPENAI_API_KEY": "sk-test", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "agent_core", "worker", "--db", url, "--once", "--concurrency", "2"]
    return [subprocess.Popen(command, env=env, cwd=ROOT, stderr=subprocess.DEVNULL) for _ in range(count)]


def outcomes(store: SessionStore, experiment_id: str) -> dict[tuple[int, int], tuple[str, bool | None, str | None]]:
    with Session(store.engine) as db:
        rows = db.exec(select(ResultRow).where(ResultRow.experiment_id == experiment_id)).all()
    return {(r.position, r.config_index): (r.state, r.passed, r.failure) for r in rows}


def sessions_of(store: SessionStore, experiment_id: str) -> dict[tuple[int, int], str | None]:
    with Session(store.engine) as db:
        rows = db.exec(select(ResultRow).where(ResultRow.experiment_id == experiment_id, ResultRow.state == "done"))
        return {(r.position, r.config_index): r.session_id for r in rows}


def test_three_workers_give_the_local_results_and_a_killed_one_resumes(
    pg_url: str, llm: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", llm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    items = parse_dataset(example_file(), "jsonl").items
    local = SessionStore.open(f"sqlite:///{tmp_path / 'local.db'}")
    create_dataset(local, "seeds", items)
    local_id = create_experiment(local, "seeds", CONFIGS, concurrency=4).id
    ExperimentRunner(local, local_id).run()
    expected = outcomes(local, local_id)

    store = SessionStore.open(pg_url)
    create_dataset(store, "seeds", items)
    queued = create_experiment(store, "seeds", CONFIGS, queue=QUEUE_NAME).id
    assert enqueue_experiment(store, pg_url, queued) == 40
    assert enqueue_experiment(store, pg_url, queued) == 0  # every unit is already waiting
    for process in workers(pg_url, llm, 3):
        assert process.wait(timeout=240) == 0
    assert outcomes(store, queued) == expected
    with Session(store.engine) as db:
        names = set(db.exec(select(ResultRow.worker).where(ResultRow.experiment_id == queued)))
    assert len(names) >= 2  # the units were shared out

    resumed = create_experiment(store, "seeds", CONFIGS, queue=QUEUE_NAME).id
    enqueue_experiment(store, pg_url, resumed)
    (victim,) = workers(pg_url, llm, 1)
    deadline = time.monotonic() + 120
    while len(sessions_of(store, resumed)) < 6:
        assert time.monotonic() < deadline and victim.poll() is None
        time.sleep(0.1)
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=30)
    before = sessions_of(store, resumed)
    assert 0 < enqueue_experiment(store, pg_url, resumed) <= 40 - len(before)
    for process in workers(pg_url, llm, 2):
        assert process.wait(timeout=240) == 0
    after = sessions_of(store, resumed)
    assert outcomes(store, resumed) == expected
    assert {k: after[k] for k in before} == before  # finished units were not run again
