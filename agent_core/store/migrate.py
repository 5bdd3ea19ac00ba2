"""The Alembic side of the schema: the shipped revisions and the upgrade to the newest (see ``schema.py``)."""

from __future__ import annotations

import functools

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Connection

SCRIPT_LOCATION = "agent_core.store:migrations"


def alembic_config() -> Config:
    """An Alembic configuration pointing at the revisions shipped in ``migrations/``."""
    config = Config()
    config.set_main_option("script_location", SCRIPT_LOCATION)
    return config


@functools.cache
def script_directory() -> ScriptDirectory:
    """The revisions shipped with this build."""
    return ScriptDirectory.from_config(alembic_config())


def alembic_head() -> str:
    """The newest revision, as Alembic finds it from the revision files."""
    head = script_directory().get_current_head()
    assert head is not None, "the migrations folder has no revision"
    return head


def known_revisions() -> list[str]:
    """Every revision of this build, oldest first."""
    return [r.revision for r in reversed(list(script_directory().walk_revisions()))]


def upgrade_to_head(conn: Connection) -> None:
    """Run the revisions from the database's own up to the head, on ``conn`` (in its transaction)."""
    config = alembic_config()
    config.attributes["connection"] = conn
    command.upgrade(config, "head")
