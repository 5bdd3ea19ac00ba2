"""The CLI acts as ``--user SUBJECT`` (the same rules as the app) or, without it, as the admin of its machine."""

from __future__ import annotations

import json

import pytest

from agent_core.cli import main
from agent_core.store import Actor, SessionStore


def sparrow(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the CLI in-process: (exit code, stdout, stderr)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_users_see_only_their_sessions_and_admins_claim_the_rest(
    file_db_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SessionStore.open(file_db_url)
    alice = store.acting_as(Actor.user("alice")).sessions.create(title="Alice's")
    store.acting_as(Actor.user("bob")).sessions.create(title="Bob's")
    old = store.sessions.create(title="Before sign-in")
    store.close()
    db = ("--db", file_db_url)

    def titles(*user: str) -> list[str]:
        code, out, _ = sparrow(capsys, "sessions", "list", "--json", *db, *user)
        assert code == 0
        return sorted(s["title"] for s in json.loads(out))

    assert titles("--user", "alice") == ["Alice's"]
    assert titles() == ["Alice's", "Before sign-in", "Bob's"]  # no --user: the admin of this machine
    code, _, err = sparrow(capsys, "sessions", "show", alice.id, *db, "--user", "bob")
    assert (code, err.strip()) == (2, f"sparrow: no session {alice.id!r}")
    assert sparrow(capsys, "sessions", "export", alice.id, *db, "--user", "bob")[0] == 2
    assert sparrow(capsys, "sessions", "delete", alice.id, *db, "--user", "bob")[0] == 2
    assert sparrow(capsys, "access", "claim", *db, "--user", "carol")[0] == 2  # not an admin
    monkeypatch.setenv("SPARROW_ADMINS", "carol, dave@example.com")
    assert titles("--user", "carol") == ["Alice's", "Before sign-in", "Bob's"]
    code, _, err = sparrow(capsys, "access", "claim", *db, "--user", "carol")
    assert code == 0 and "claimed 1 session(s)" in err
    assert titles("--user", "carol") == ["Alice's", "Before sign-in", "Bob's"]
    monkeypatch.delenv("SPARROW_ADMINS")
    assert titles("--user", "carol") == ["Before sign-in"]
    reopened = SessionStore.open(file_db_url)
    assert reopened.sessions.get(old.id).owner == "carol"
    reopened.close()


def test_share_links_from_the_command_line(file_db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    store = SessionStore.open(file_db_url)
    session = store.acting_as(Actor.user("alice")).sessions.create(title="Demo")
    db = ("--db", file_db_url, "--user", "alice")
    code, out, _ = sparrow(
        capsys, "access", "share", session.id, "--anonymous", "--days", "7", "--app-url", "http://x/", *db
    )
    assert code == 0 and out.startswith("http://x/?share=")
    token = out.strip().split("share=")[1]
    assert store.shares.open(token).session_id == session.id
    code, out, _ = sparrow(capsys, "access", "links", session.id, "--json", *db)
    [link] = json.loads(out)
    assert (link["active"], link["allow_anonymous"]) == (True, True) and token not in out
    assert sparrow(capsys, "access", "revoke", link["id"], "--db", file_db_url, "--user", "bob")[0] == 2
    assert sparrow(capsys, "access", "revoke", link["id"], *db)[0] == 0
    assert json.loads(sparrow(capsys, "access", "links", session.id, "--json", *db)[1])[0]["active"] is False
    code, _, err = sparrow(capsys, "access", "share", session.id, "--days", "0", *db)
    assert code == 2 and "expires after" in err
    store.close()
