"""Run owners: which process runs each session's run in progress, its heartbeat, and a cancel request.

Revision ID: 0002_run_owners
Revises: 0001_baseline
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_run_owners"
down_revision: str | None = "0001_baseline"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the ``run_owners`` table (one row per session with a run in progress)."""
    op.create_table(
        "run_owners",
        sa.Column("session_id", sa.String(64), sa.ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("run_id", sa.String(64), nullable=False),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("heartbeat", sa.Float, nullable=False),
        sa.Column("cancel_requested", sa.Boolean, nullable=False),
    )


def downgrade() -> None:
    """Drop the ``run_owners`` table."""
    op.drop_table("run_owners")
