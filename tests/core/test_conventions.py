"""Conventions people bring: DATABASE_URL from a host, --version, NO_COLOR, the invoked name, the file's schema."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from sqlalchemy import text

from agent_core.cli.conventions import program_name
from agent_core.cli.terminal import use_color
from agent_core.store.database import create_db_engine, database_url, with_driver
from agent_core.store.files import session_file_schema

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "agent_core" / "examples" / "sessions" / "dates.sparrow.json"


@pytest.mark.parametrize(
    ("given", "used"),
    [
        (
            "postgres://u:p@db.example:5432/app?sslmode=require",
            "postgresql+psycopg://u:p@db.example:5432/app?sslmode=require",
        ),
        ("postgresql://u@h/app", "postgresql+psycopg://u@h/app"),
        ("postgresql+psycopg://u@h/app", "postgresql+psycopg://u@h/app"),
        ("sqlite:///data/x.db", "sqlite:///data/x.db"),
    ],
)
def test_a_hosting_platforms_database_url_names_the_driver(
    given: str, used: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert with_driver(given) == used
    monkeypatch.setenv("DATABASE_URL", given)
    assert database_url() == used


def test_a_postgres_url_as_platforms_write_it_opens_the_store(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if not db_url.startswith("postgresql"):
        pytest.skip("PostgreSQL only")
    monkeypatch.setenv("DATABASE_URL", "postgres://" + db_url.split("://", 1)[1])
    engine = create_db_engine()
    try:
        with engine.connect() as connection:
            assert connection.execute(text("select 1")).scalar() == 1
        assert engine.dialect.driver == "psycopg"
    finally:
        engine.dispose()


def test_the_program_is_named_as_invoked() -> None:
    assert program_name("/venv/bin/sparrow") == "sparrow"
    assert program_name("/src/agent_core/__main__.py") == "python -m agent_core"
    done = subprocess.run([sys.executable, "-m", "agent_core", "nope"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith("usage: python -m agent_core ")
    version = subprocess.run(
        [sys.executable, "-m", "agent_core", "--version"], cwd=ROOT, capture_output=True, text=True
    )
    assert version.returncode == 0 and version.stdout.startswith("python -m agent_core ")


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        """Always."""
        return True


def test_no_color_turns_colour_off_even_on_a_terminal() -> None:
    assert use_color(Terminal(), {}) is True
    assert use_color(Terminal(), {"NO_COLOR": "1"}) is False
    assert use_color(io.StringIO(), {}) is False
    assert use_color(Terminal(), {"NO_COLOR": ""}) is True  # no-color.org: set and not empty


def test_the_session_file_schema_accepts_a_shipped_file_and_refuses_a_bad_event() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agent_core", "sessions", "schema"], cwd=ROOT, capture_output=True, text=True
    )
    schema = json.loads(done.stdout)
    assert schema == session_file_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    jsonschema.validate(document, schema, cls=jsonschema.Draft202012Validator)
    document["events"][0]["type"] = "no_such_event"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema, cls=jsonschema.Draft202012Validator)
    published = (ROOT / "docs" / "session-file.md").read_text(encoding="utf-8")
    assert json.dumps(schema, ensure_ascii=False, indent=2) in published  # the docs show what the command prints
