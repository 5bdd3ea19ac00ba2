"""Shared pieces of the experiment tests: a store on a real file, and the rule-driven stand-in model."""

from __future__ import annotations

from pathlib import Path

from agent_core.experiments.example import rule_model
from agent_core.store import SessionStore

__all__ = ["file_store", "rule_model"]


def file_store(tmp_path: Path) -> SessionStore:
    """A store on a SQLite file (the runner's threads need real connections, not one shared in-memory one)."""
    return SessionStore.open(f"sqlite:///{tmp_path / 'experiments.db'}")
