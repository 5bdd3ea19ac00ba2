"""The environment is read in one place: one typed object, read again when a variable changes; bad values named."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agent_core.env_settings import VARIABLES, EnvSettings, EnvSettingsError, env_settings
from agent_core.store.database import database_url
from agent_core.tools.plugins import modules_from_env

ROOT = Path(__file__).resolve().parents[2]


def test_a_changed_variable_is_read_again_and_an_unchanged_environment_is_not(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("SPARROW_DATA_DIR", str(tmp_path / "one"))
    first = env_settings()
    assert env_settings() is first  # nothing changed: the same object, not a second read
    assert database_url() == f"sqlite:///{tmp_path / 'one' / 'sparrow.db'}"
    monkeypatch.setenv("SPARROW_DATA_DIR", str(tmp_path / "two"))
    assert env_settings().sparrow_data_dir == tmp_path / "two"
    assert database_url() == f"sqlite:///{tmp_path / 'two' / 'sparrow.db'}"
    monkeypatch.delenv("SPARROW_DATA_DIR")
    assert env_settings().sparrow_data_dir == Path("data")


def test_values_are_typed_and_empty_means_the_default(monkeypatch) -> None:
    monkeypatch.setenv("SPARROW_TOOLS", " mypkg.tools, ,/tmp/my_tools.py ")
    monkeypatch.setenv("SPARROW_PLUGIN_WORKERS", "4")
    monkeypatch.setenv("SPARROW_FETCH_ALLOW_PRIVATE", "yes")
    monkeypatch.setenv("SPARROW_MODEL", "")
    env = env_settings()
    assert (env.sparrow_tools, env.sparrow_plugin_workers, env.sparrow_fetch_allow_private) == (
        ("mypkg.tools", "/tmp/my_tools.py"),
        4,
        True,
    )
    assert env.sparrow_model is None and env.sparrow_db_retry_s == 30.0
    assert modules_from_env() == ["mypkg.tools", "/tmp/my_tools.py"]


def test_a_mapping_passed_in_stands_for_the_whole_environment(monkeypatch) -> None:
    monkeypatch.setenv("SPARROW_MODEL", "from-the-process")
    assert env_settings({}).sparrow_model is None
    assert env_settings({"SPARROW_MODEL": "given"}).sparrow_model == "given"


@pytest.mark.parametrize(
    ("variable", "value", "sentence"),
    [
        ("SPARROW_DB_RETRY_S", "soon", "SPARROW_DB_RETRY_S must be a number, got 'soon'"),
        ("SPARROW_PLUGIN_WORKERS", "2.5", "SPARROW_PLUGIN_WORKERS must be a whole number, got '2.5'"),
        ("SPARROW_PLUGIN_WORKERS", "0", "SPARROW_PLUGIN_WORKERS must be greater than or equal to 1, got '0'"),
        ("OTEL_SDK_DISABLED", "maybe", "OTEL_SDK_DISABLED must be true or false (1/0, yes/no, on/off), got 'maybe'"),
    ],
)
def test_a_bad_value_is_one_sentence_naming_the_variable(variable: str, value: str, sentence: str) -> None:
    with pytest.raises(EnvSettingsError) as caught:
        env_settings({variable: value})
    assert str(caught.value) == sentence


def test_the_cli_says_that_sentence_and_nothing_more(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "SPARROW_DATA_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "agent_core", "tools"],
        env={**env, "SPARROW_PLUGIN_WORKERS": "many"},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "sparrow: SPARROW_PLUGIN_WORKERS must be a whole number, got 'many'\n"


def test_every_field_is_named_for_its_variable_and_has_a_docstring() -> None:
    source = (ROOT / "agent_core" / "env_settings.py").read_text(encoding="utf-8")
    for name in EnvSettings.model_fields:
        assert name.upper() in VARIABLES
        after = source.split(f"\n    {name}:", 1)[1].split("\n", 2)[1].strip()
        assert after.startswith('"""'), f"{name} has no docstring under it"


def test_secrets_do_not_show_in_the_repr() -> None:
    env = env_settings({"OPENAI_API_KEY": "sk-hidden", "DATABASE_URL": "postgresql://u:pw@db/s"})
    assert "sk-hidden" not in repr(env) and "pw@" not in repr(env)
