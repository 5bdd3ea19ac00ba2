"""With sign-in, each user's sidebar settings are their own: nobody's base URL becomes another's default."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sparrow_ui.shell.settings import settings_path
from tests.access.test_pages_access import app

FIELDS = {
    "cfg_base_url": ["http://10.9.9.9:8000/v1", "https://attacker.example/v1", "http://localhost:11434/v1"],
    "cfg_model": ["evil-model", "qwen2.5:7b", "gpt-4.1"],
}
USERS = [{"sub": f"sub-{name}", "iss": "https://id.example.com", "is_logged_in": True} for name in "abcd"]


def shown(at: Any) -> dict[str, str]:
    return {key: at.text_input(key=key).value for key in FIELDS}


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(writer=st.sampled_from(USERS), field=st.sampled_from(sorted(FIELDS)), value=st.sampled_from(range(3)))
def test_one_users_setting_is_nobody_elses_default(
    monkeypatch: pytest.MonkeyPatch, writer: dict[str, Any], field: str, value: int
) -> None:
    defaults = {user["sub"]: shown(app(monkeypatch, user)) for user in USERS}
    chosen = FIELDS[field][value]
    at = app(monkeypatch, writer)
    at.text_input(key=field).set_value(chosen).run()
    at.text_input(key="cfg_api_key").set_value("sk-writer-typed-this").run()
    for user in USERS:
        fresh = app(monkeypatch, user)  # a new tab (a new browser session) of each user
        if user is writer:
            assert shown(fresh)[field] == chosen
        else:
            assert shown(fresh) == defaults[user["sub"]]
        assert fresh.text_input(key="cfg_api_key").value == ""  # a typed key is never kept
    assert not settings_path().exists()  # no file shared by everyone


def test_a_tab_whose_user_changes_starts_from_the_new_users_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    alice, bob = USERS[0], USERS[1]
    at = app(monkeypatch, alice)
    at.text_input(key="cfg_base_url").set_value("https://alice.example/v1").run()
    at.text_input(key="cfg_api_key").set_value("sk-alice-typed").run()
    monkeypatch.setattr("sparrow_ui.access.auth.user_claims", lambda: bob)  # Alice signs out, Bob signs in, same tab
    at.run()
    assert at.text_input(key="cfg_base_url").value != "https://alice.example/v1"
    assert at.text_input(key="cfg_api_key").value == ""


def test_without_sign_in_one_file_serves_the_server_as_before(tmp_path: Path) -> None:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=30)
    at.run()
    at.text_input(key="cfg_base_url").set_value("http://localhost:11434/v1").run()
    assert '"base_url": "http://localhost:11434/v1"' in settings_path().read_text(encoding="utf-8")
