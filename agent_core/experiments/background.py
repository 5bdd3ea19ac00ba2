"""An experiment running in a background thread of this process (the app's Run button), with its live progress."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from agent_core.experiments.experiment_progress import Progress
from agent_core.experiments.experiment_runner import ExperimentRunner
from agent_core.experiments.run_configs import ModelFactory, openai_model
from agent_core.guards.limits import CancelToken
from agent_core.store import SessionStore


@dataclass
class BackgroundRun:
    """One experiment running in a thread; ``progress`` is its latest figures, ``stop()`` cancels it cleanly."""

    experiment_id: str
    cancel: CancelToken = field(default_factory=CancelToken)
    progress: Progress | None = None
    error: str | None = None
    thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        """True until the thread ends."""
        return self.thread is not None and self.thread.is_alive()

    def stop(self) -> None:
        """Let the running items end as cancelled and start no new one (a later run resumes the rest)."""
        self.cancel.cancel()

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the thread to end."""
        if self.thread is not None:
            self.thread.join(timeout)


def start_in_background(
    store: SessionStore, experiment_id: str, model_factory: ModelFactory = openai_model
) -> BackgroundRun:
    """Run (or resume) ``experiment_id`` in a daemon thread."""
    job = BackgroundRun(experiment_id)

    def report(progress: Progress) -> None:
        job.progress = progress

    def work() -> None:
        try:
            runner = ExperimentRunner(
                store, experiment_id, model_factory=model_factory, on_progress=report, cancel=job.cancel
            )
            job.progress = runner.run()
        except Exception as exc:  # shown on the page; the experiment stays resumable
            job.error = f"{type(exc).__name__}: {exc}"

    job.thread = threading.Thread(target=work, name=f"experiment-{experiment_id}", daemon=True)
    job.thread.start()
    return job
