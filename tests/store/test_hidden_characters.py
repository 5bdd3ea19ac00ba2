"""Control and format characters in titles and names show escaped; text bound for the database is storable."""

from __future__ import annotations

import contextlib
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from agent_core import Agent
from agent_core.cli import main
from agent_core.guards.untrusted import is_hidden, visible
from agent_core.runtime.sessions import run_in_session
from agent_core.store import SessionStore
from agent_core.store.database import NotStorable
from agent_core.store.tables import clean_title, title_from_question
from agent_core.testing import ScriptedModel

HIDDEN = st.sampled_from(
    ["\u202e", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u200b", "\u200e", "\u200f", "\ufeff", "\x00",
     "\x1b", "\x7f", "\u0085", "\u2028", "\u2029", "\u061c", "\U000e0001", "\ue000"]
)  # fmt: skip
ANY_TEXT = st.lists(st.one_of(st.text(min_size=1, max_size=8), HIDDEN), min_size=1, max_size=12).map("".join)


def shows_nothing_hidden(shown: str) -> bool:
    return not any(is_hidden(c) for c in shown)


@settings(max_examples=400, deadline=None)
@given(raw=ANY_TEXT)
def test_titles_and_names_never_carry_a_hidden_character(raw: str) -> None:
    assert shows_nothing_hidden(title_from_question(raw))
    if raw.strip():
        with contextlib.suppress(ValueError):  # only whitespace once collapsed: refused as empty
            assert shows_nothing_hidden(clean_title(raw))
    assert shows_nothing_hidden(visible(raw))


@settings(max_examples=200, deadline=None)
@given(raw=ANY_TEXT)
def test_visible_keeps_every_shown_character(raw: str) -> None:
    shown = visible(raw)
    rest = iter(shown)
    assert all(char in rest for char in raw if not is_hidden(char))  # every shown character, in order
    for char in raw:
        if is_hidden(char):
            assert (f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}") in shown


def test_emoji_sequences_and_chinese_titles_stay_as_written() -> None:
    for title in ["👨‍👩‍👧 family trip", "2024年5月20日之后150天是星期几", "naïve café"]:
        assert title_from_question(title) == title
        assert unicodedata.normalize("NFC", visible(title)) == unicodedata.normalize("NFC", title)


@pytest.mark.parametrize("question", ["look \u202eevil.exe\u202c here", "zero\x00byte question", "bell\x07 \u2028 x"])
def test_a_question_with_hidden_characters_runs_and_titles_visibly_on_each_backend(
    file_db_url: str, question: str, capsys: pytest.CaptureFixture[str]
) -> None:
    db_url = file_db_url
    store = SessionStore.open(db_url)
    session = store.sessions.create()
    events = list(run_in_session(store, session.id, Agent(ScriptedModel(["Final Answer: ok"]), []), question))
    assert events[-1].status == "completed"
    title = store.sessions.get(session.id).title
    assert shows_nothing_hidden(title) and "\\u" in title
    assert [e.question for e in store.log.events(session.id) if e.type == "run_started"] == [question]
    assert main(["sessions", "list", "--db", db_url]) == 0
    listed = capsys.readouterr().out
    assert title in listed and shows_nothing_hidden(listed.replace("\n", ""))


def test_a_raw_title_written_past_the_store_still_lists_escaped(tmp_path: str, capsys: pytest.CaptureFixture) -> None:
    url = f"sqlite:///{tmp_path}/db.sqlite"
    store = SessionStore.open(url)
    session = store.sessions.create()
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE sessions SET title = :t WHERE id = :i"), {"t": "a\u202eb", "i": session.id})
    assert store.sessions.get(session.id).title == "a\\u202eb"
    assert main(["sessions", "list", "--db", url]) == 0
    assert "\u202e" not in capsys.readouterr().out


def test_a_nul_bound_for_postgresql_is_refused_in_one_sentence(db_url: str) -> None:
    store = SessionStore.open(db_url)
    if store.engine.dialect.name != "postgresql":
        pytest.skip("SQLite stores U+0000 in text")
    refused = pytest.raises(NotStorable, match=r"contains a NUL character \(U\+0000\) at position 1")
    with refused, store.engine.begin() as conn:
        conn.execute(text("SELECT :value"), {"value": "a\x00b"})
