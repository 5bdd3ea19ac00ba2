"""Memory search on PostgreSQL: pg_trgm finds the candidates, and they are ranked exactly as SQLite's FTS5 ranks them.

SQLite scores a memory as *terms found* + a BM25 fraction computed by FTS5 over trigram phrases. PostgreSQL has no
BM25, so the same BM25 (FTS5's formula: k1 = 1.2, b = 0.75, idf floored at 1e-6, a document's length counted in
trigrams, statistics over the whole table) is computed here from counts PostgreSQL returns: how many memories
there are, their total length, and how many hold each phrase. The candidates and those counts come from
``ILIKE`` predicates that migration 0003's pg_trgm GIN index serves, so the same query returns the same memories
in the same order on both databases.
"""

from __future__ import annotations

import math
from typing import Any, cast

from sqlalchemy import Connection, Integer, case, func, literal, or_, select
from sqlalchemy.sql import ColumnElement

from agent_core.store.memory_index import QueryTerms, in_scope
from agent_core.store.tables import MemoryRow, table_of

K1, B = 1.2, 0.75
"""FTS5's bm25() defaults."""
_MEMORIES = table_of(MemoryRow)


def postgresql_scores(
    conn: Connection, terms: QueryTerms, scope: str, limit: int, owner: str | None = None
) -> dict[int, float]:
    """``{memory id: score}`` of the best ``limit`` matches in ``scope`` (see the module docstring)."""
    text = _MEMORIES.c.text
    found = [text.icontains(term, autoescape=True) for term in terms.terms]
    terms_found: ColumnElement[int] = sum((case((hit, 1), else_=0) for hit in found), literal(0))
    query = select(_MEMORIES.c.id, _MEMORIES.c.text, _MEMORIES.c.created_at, terms_found.label("found"))
    candidates = conn.execute(query.where(in_scope(scope, owner), or_(*found))).all()
    if not candidates:
        return {}
    relevance = _bm25(conn, terms.indexed, {row.id: row.text for row in candidates})
    ranked = sorted(candidates, key=lambda r: (-(r.found + relevance[r.id]), -r.created_at, -r.id))
    return {row.id: row.found + relevance[row.id] for row in ranked[:limit]}


def _bm25(conn: Connection, phrases: tuple[str, ...], texts: dict[int, str]) -> dict[int, float]:
    """FTS5's BM25 of each text for ``phrases`` (any of them), mapped to 0..1 as SQLite's search maps it."""
    if not phrases:
        return dict.fromkeys(texts, 0.0)
    text = _MEMORIES.c.text
    hits = [func.sum(case((text.icontains(p, autoescape=True), 1), else_=0)) for p in phrases]
    length = func.sum(func.greatest(func.char_length(text) - 2, 0), type_=Integer)
    rows, total_length, *holding = cast("tuple[Any, ...]", conn.execute(select(func.count(), length, *hits)).one())
    average = (total_length or 0) / rows if rows else 0.0
    idf = [max(math.log((rows - n + 0.5) / (n + 0.5)), 1e-6) for n in holding]
    relevance: dict[int, float] = {}
    for memory_id, body in texts.items():
        folded, size = body.lower(), max(len(body) - 2, 0)
        score = 0.0
        for phrase, weight in zip(phrases, idf, strict=True):
            tf = _occurrences(folded, phrase)
            if tf:
                score += weight * tf * (K1 + 1) / (tf + K1 * (1 - B + B * size / average if average else 1.0))
        relevance[memory_id] = score / (1 + score)
    return relevance


def _occurrences(haystack: str, needle: str) -> int:
    """Overlapping occurrences, as FTS5 counts phrase hits."""
    count, start = 0, haystack.find(needle)
    while start != -1:
        count, start = count + 1, haystack.find(needle, start + 1)
    return count
