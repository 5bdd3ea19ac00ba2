"""The judge of an experiment: the model (and endpoint) that grades its ``judge`` checks, recorded with its configs.

Revision ID: 0008_experiment_judge
Revises: 0007_owner_issuer
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_experiment_judge"
down_revision: str | None = "0007_owner_issuer"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``experiments.judge`` (a configuration as JSON; NULL: no judge), where missing.

    Missing is the rule; a database upgraded from the baseline again (it lost its revision) may have it already.
    """
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("experiments")}
    if "judge" not in columns:
        op.add_column("experiments", sa.Column("judge", sa.JSON(), nullable=True))


def downgrade() -> None:
    """Drop it (the experiments keep their scores; only the record of which model judged is lost).

    A plain ``DROP COLUMN`` (SQLite 3.35+), not a batch copy: copying ``experiments`` would cascade-delete results.
    """
    op.drop_column("experiments", "judge")
