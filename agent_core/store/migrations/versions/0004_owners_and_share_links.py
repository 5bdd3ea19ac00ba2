"""Users and access: owners on sessions, snapshots and memories; who started each run; read-only share links.

Existing rows get no owner (NULL): admins see them and may claim them, and without sign-in nothing changes.

Revision ID: 0004_owners_and_share_links
Revises: 0003_memory_trigram_index
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_owners_and_share_links"
down_revision: str | None = "0003_memory_trigram_index"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OWNED = ("sessions", "snapshots", "memories")


def upgrade() -> None:
    """Add the owner columns (with their indexes) and the ``runs`` and ``share_links`` tables, where missing."""
    inspector = sa.inspect(op.get_bind())
    for table in OWNED:
        if "owner" not in {c["name"] for c in inspector.get_columns(table)}:
            op.add_column(table, sa.Column("owner", sa.String(200), nullable=True))
            op.create_index(f"ix_{table}_owner", table, ["owner"])
    if not inspector.has_table("runs"):
        _create_runs()
    if not inspector.has_table("share_links"):
        _create_share_links()


def _create_runs() -> None:
    op.create_table(
        "runs",
        sa.Column("session_id", sa.String(64), sa.ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("run_id", sa.String(64), primary_key=True),
        sa.Column("started_by", sa.String(200), nullable=False),
        sa.Column("started_at", sa.Float, nullable=False),
    )


def _create_share_links() -> None:
    op.create_table(
        "share_links",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("session_id", sa.String(64), sa.ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False),
        sa.Column("snapshot_id", sa.String(64), sa.ForeignKey("snapshots.id", ondelete="CASCADE")),
        sa.Column("created_by", sa.String(200)),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float),
        sa.Column("revoked_at", sa.Float),
        sa.Column("allow_anonymous", sa.Boolean, nullable=False),
    )
    op.create_index("ix_share_links_session_id", "share_links", ["session_id"])


def downgrade() -> None:
    """Drop the share links, the run starters and the owner columns."""
    op.drop_index("ix_share_links_session_id", "share_links")
    op.drop_table("share_links")
    op.drop_table("runs")
    for table in OWNED:
        op.drop_index(f"ix_{table}_owner", table)
        op.drop_column(table, "owner")  # in place (SQLite 3.35+): a copied table would cascade-delete the events
