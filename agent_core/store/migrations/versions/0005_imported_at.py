"""Imported copies: ``sessions.imported_at``, when a session came in from a session file (never in the file).

Existing sessions get NULL: they read as made here (an import from before this revision cannot be told apart).

Revision ID: 0005_imported_at
Revises: 0004_owners_and_share_links
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_imported_at"
down_revision: str | None = "0004_owners_and_share_links"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the nullable ``imported_at`` column (no default), where missing."""
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("sessions")}
    if "imported_at" not in columns:
        op.add_column("sessions", sa.Column("imported_at", sa.Float, nullable=True))


def downgrade() -> None:
    """Drop the ``imported_at`` column."""
    op.drop_column("sessions", "imported_at")  # in place (SQLite 3.35+): a copied table would cascade-delete the events
