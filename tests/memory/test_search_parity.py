"""Memory search gives the same facts in the same order on SQLite (FTS5 trigram) and PostgreSQL (tsvector)."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from agent_core.longterm import MemoryStore

CORPUS = [
    "The user prefers green tea over coffee",
    "The user's favourite colours are blue and green",
    "The user works on AI safety at a lab in Berlin",
    "The user's cat is called Miso",
    "The user drinks green tea every morning and black coffee after lunch",
    "The user lives in Berlin and works from home on Fridays",
    "The user's sister lives in Lisbon",
    "The user plays tennis on Sundays",
    "The user is allergic to cats",
    "The user prefers the metric system and 24-hour clocks",
    "用户住在上海，喜欢喝龙井茶",
    "用户的猫叫咪咪",
    "用户在北京工作，是软件工程师",
    "用户喜欢绿茶，不喜欢咖啡",
]
QUERIES = [
    "green tea",
    "coffee",
    "What colour does the user like?",
    "Berlin",
    "where does the user work",
    "cat",
    "tea or coffee in the morning",
    "lives",
    "AI lab",
    "Sundays tennis",
    "茶",
    "上海",
    "用户喜欢喝什么茶？",
    "我的猫叫什么名字",
    "咖啡",
    "软件工程师",
]


def ranked(url: str) -> dict[str, list[tuple[str, float]]]:
    """Each query's results (text and score, best first) on one database filled with the corpus."""
    memories = MemoryStore.open(url)
    for fact in CORPUS:
        memories.add(fact)
    memories.add("The user prefers green tea in the morning", scope="alice")  # other scopes count in BM25 too
    found = {query: [(m.text, round(m.score or 0, 3)) for m in memories.search(query, limit=10)] for query in QUERIES}
    memories.close()
    return found


@pytest.mark.parametrize("backend", ["postgresql"])
def test_postgresql_finds_the_same_facts_in_the_same_order_with_the_same_scores(db_url: str) -> None:
    on_sqlite = ranked("sqlite://")
    assert all(on_sqlite[q] for q in QUERIES) and max(len(found) for found in on_sqlite.values()) >= 3
    assert ranked(db_url) == on_sqlite


@pytest.mark.parametrize("backend", ["postgresql"])
def test_postgresql_search_uses_the_trigram_index(db_url: str) -> None:
    memories = MemoryStore.open(db_url)
    for fact in CORPUS:
        memories.add(fact)
    with memories.engine.connect() as conn:
        conn.execute(text("SET enable_seqscan = off"))  # a tiny table: make the planner show what it can use
        plan = conn.execute(text("EXPLAIN SELECT id FROM memories WHERE text ILIKE '%green%'")).scalars().all()
    memories.close()
    assert any("ix_memories_text_trgm" in line for line in plan), plan
