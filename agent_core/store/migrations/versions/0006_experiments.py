"""Experiments: datasets and their items, experiments, and one scored result per (item, configuration, repeat).

New tables only; nothing existing changes.

Revision ID: 0006_experiments
Revises: 0005_imported_at
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_experiments"
down_revision: str | None = "0005_imported_at"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the four experiment tables, where missing."""
    inspector = sa.inspect(op.get_bind())
    for name, create in (
        ("datasets", _datasets),
        ("dataset_items", _dataset_items),
        ("experiments", _experiments),
        ("experiment_results", _results),
    ):
        if not inspector.has_table(name):
            create()


def _datasets() -> None:
    op.create_table(
        "datasets",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("owner", sa.String(200)),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("item_count", sa.Integer, nullable=False),
        sa.UniqueConstraint("owner", "name", "version"),
    )
    op.create_index("ix_datasets_name", "datasets", ["name"])
    op.create_index("ix_datasets_owner", "datasets", ["owner"])


def _dataset_items() -> None:
    op.create_table(
        "dataset_items",
        sa.Column("dataset_id", sa.String(64), sa.ForeignKey("datasets.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("position", sa.Integer, primary_key=True),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("data", sa.JSON, nullable=False),
    )


def _experiments() -> None:
    op.create_table(
        "experiments",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("dataset_id", sa.String(64), sa.ForeignKey("datasets.id", ondelete="CASCADE"), nullable=False),
        sa.Column("configs", sa.JSON, nullable=False),
        sa.Column("repeats", sa.Integer, nullable=False),
        sa.Column("concurrency", sa.Integer, nullable=False),
        sa.Column("baseline_id", sa.String(64)),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("owner", sa.String(200)),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float),
        sa.Column("queue", sa.String(40)),
    )
    op.create_index("ix_experiments_dataset_id", "experiments", ["dataset_id"])
    op.create_index("ix_experiments_owner", "experiments", ["owner"])


def _results() -> None:
    op.create_table(
        "experiment_results",
        sa.Column(
            "experiment_id", sa.String(64), sa.ForeignKey("experiments.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("position", sa.Integer, primary_key=True),
        sa.Column("config_index", sa.Integer, primary_key=True),
        sa.Column("repeat", sa.Integer, primary_key=True),
        sa.Column("session_id", sa.String(64), sa.ForeignKey("sessions.id", ondelete="SET NULL")),
        sa.Column("run_id", sa.String(64)),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("passed", sa.Boolean),
        sa.Column("score", sa.Float),
        sa.Column("scores", sa.JSON, nullable=False),
        sa.Column("failure", sa.String(40)),
        sa.Column("cost", sa.Float),
        sa.Column("worker", sa.String(200)),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float),
    )


def downgrade() -> None:
    """Drop the experiment tables (the sessions their items ran in stay)."""
    for name in ("experiment_results", "experiments", "dataset_items", "datasets"):
        op.drop_table(name)
