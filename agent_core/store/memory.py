"""Memory search in SQL: a query's terms, the full-text indexes, and one ranking on SQLite and PostgreSQL alike.

On SQLite, ``memories_fts`` is an external-content FTS5 table over ``memories`` with the ``trigram`` tokenizer
(SQLite 3.34 or newer), kept in step by triggers, so even a row written by hand is indexed; on PostgreSQL a pg_trgm
GIN index (``ix_memories_text_trgm``, made by the migrations) serves the same ``ILIKE`` predicates. Trigrams work
for English and Chinese alike (no word segmentation) but match only terms of three or more characters; shorter
terms (``AI``, ``上海``) are matched with ``LIKE``. Every database ranks by ``score = terms found + relevance``: how
many query terms the memory holds (substring, case-insensitive), plus FTS5's BM25 mapped to 0..1
(``-bm25 / (1 - bm25)``), which ``postgresql_scores`` computes with FTS5's own formula (k1 = 1.2, b = 0.75, idf
floored at 1e-6, lengths in trigrams, statistics over the whole table) from counts PostgreSQL returns, so one
query finds the same memories in the same order on both. A memory holding more of the terms always ranks first;
without FTS5 the relevance is 0 and search works by ``LIKE`` alone. A memory's duplicate key (``text_hash``) lives
here too: the store re-keys it when a memory changes owner.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Connection, Float, Integer, and_, case, func, literal, or_, select, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.sql import ColumnElement, Select

from agent_core.guards.untrusted import fold
from agent_core.store.tables import MemoryRow, table_of

log = logging.getLogger(__name__)

FTS_TABLE = "memories_fts"
MIN_FTS_CHARS = 3
"""The trigram tokenizer cannot match shorter terms; those go through LIKE."""
MAX_TERMS = 32
"""Query terms used at most (the rest of a very long query is ignored)."""

_SQLITE_DDL = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5("
    "text, content='memories', content_rowid='id', tokenize='trigram')",
    f"CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_insert AFTER INSERT ON memories BEGIN "
    f"INSERT INTO {FTS_TABLE}(rowid, text) VALUES (new.id, new.text); END",
    f"CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_delete AFTER DELETE ON memories BEGIN "
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, text) VALUES ('delete', old.id, old.text); END",
    f"CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_update AFTER UPDATE OF text ON memories BEGIN "
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, text) VALUES ('delete', old.id, old.text); "
    f"INSERT INTO {FTS_TABLE}(rowid, text) VALUES (new.id, new.text); END",
)

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W{_CJK}]+")
_STOPWORD_LIST = (
    "a an the is are was were be been am do does did what which who whom whose when where why how i me my mine "
    "you your yours we our us he she it its they them their his her of in on at to for from by with about and or "
    "not no that this these those there here any some can could would should will shall may might has have had "
    "know remember recall tell told saved save memory memories user users"
)
_STOPWORDS = frozenset(_STOPWORD_LIST.split())
"""Words dropped from queries; "user" too, since memories are written as "The user ..."."""
_ZH_STOP_PHRASES = re.compile(r"什么|怎么|怎样|哪里|哪儿|哪个|为什么|多少|是否|有没有|知道|记得|告诉|一下|用户")
_ZH_STOP_CHARS = re.compile(r"[的了吗呢吧啊呀么是和与及或也都就很在有我你他她它们这那个]")


@dataclass(frozen=True)
class QueryTerms:
    """What a query is searched by: every term, and those the FTS index can match (three characters or more)."""

    terms: tuple[str, ...]
    """Lower-cased terms, in query order, without duplicates."""

    @property
    def indexed(self) -> tuple[str, ...]:
        """Terms long enough for the trigram index."""
        return tuple(t for t in self.terms if len(t) >= MIN_FTS_CHARS)

    @property
    def short(self) -> tuple[str, ...]:
        """Terms only LIKE can match."""
        return tuple(t for t in self.terms if len(t) < MIN_FTS_CHARS)


def query_terms(query: str) -> QueryTerms:
    """Split a query into search terms: words (stopwords dropped) and, for Chinese/Japanese/Korean, n-grams."""
    folded = unicodedata.normalize("NFKC", query).lower()
    kept = _terms(_ZH_STOP_CHARS.sub(" ", _ZH_STOP_PHRASES.sub(" ", folded)), drop_stopwords=True)
    terms = kept or _terms(folded, drop_stopwords=False)  # a query of stopwords only still searches
    return QueryTerms(tuple(dict.fromkeys(terms))[:MAX_TERMS])


def _terms(text: str, *, drop_stopwords: bool) -> list[str]:
    terms: list[str] = []
    for token in _TOKEN.findall(text):
        if re.match(rf"[{_CJK}]", token):
            terms += _ngrams(token)
        elif len(token) > 1 and not (drop_stopwords and token in _STOPWORDS):
            terms.append(token)
    return terms


def _ngrams(run: str) -> list[str]:
    """A CJK run as terms: itself when short, else its trigrams (for the index) and bigrams (for LIKE)."""
    if len(run) <= 2:
        return [run]
    trigrams = [run[i : i + 3] for i in range(len(run) - 2)]
    bigrams = [run[i : i + 2] for i in range(len(run) - 1)]
    return trigrams + bigrams


def fts_query(terms: tuple[str, ...]) -> str:
    """An FTS5 MATCH expression: each term a quoted phrase, any of them may match."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def create_sqlite_fts(conn: Connection) -> None:
    """Create the SQLite FTS5 index and its triggers if missing (and fill it from the rows)."""
    existed = has_fts(conn)
    try:
        with conn.begin_nested():
            for statement in _SQLITE_DDL:
                conn.exec_driver_sql(statement)
            if not existed:
                conn.exec_driver_sql(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')")
    except OperationalError as exc:  # an SQLite without FTS5 or without the trigram tokenizer (< 3.34)
        log.warning("memory search falls back to LIKE: SQLite full-text search is unavailable (%s)", exc.orig)


def has_fts(conn: Connection) -> bool:
    """True when the database has the FTS5 memory index."""
    if conn.dialect.name != "sqlite":
        return False
    found = conn.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (FTS_TABLE,))
    return found.first() is not None


def owned_by(owner: str | None) -> ColumnElement[bool]:
    """The memories that belong to ``owner`` (None: those saved without sign-in)."""
    memories = table_of(MemoryRow)
    return memories.c.owner.is_(None) if owner is None else memories.c.owner == owner


def in_scope(scope: str, owner: str | None) -> ColumnElement[bool]:
    """The memories of ``scope`` that belong to ``owner`` (None: those saved without sign-in)."""
    return and_(table_of(MemoryRow).c.scope == scope, owned_by(owner))


def search_statement(
    terms: QueryTerms, scope: str, limit: int, *, dialect: str, fts: bool, owner: str | None = None
) -> Select[tuple[int, float]]:
    """``SELECT id, score`` of the scope's memories matching any term, best first (SQLite; see the module docstring)."""
    memories = table_of(MemoryRow)
    found = [memories.c.text.icontains(term, autoescape=True) for term in terms.terms]
    terms_found: ColumnElement[int] = sum((case((hit, 1), else_=0) for hit in found), literal(0))
    matches: list[ColumnElement[bool]] = list(found)
    relevance: ColumnElement[float] = literal(0.0)
    query = select(memories.c.id)
    if dialect == "sqlite" and fts and terms.indexed:
        ranked = (
            text(f"SELECT rowid AS rid, bm25({FTS_TABLE}) AS rank FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH :fts_match")
            .bindparams(fts_match=fts_query(terms.indexed))
            .columns(rid=Integer, rank=Float)
            .subquery("ranked")
        )
        query = query.outerjoin(ranked, ranked.c.rid == memories.c.id)
        matches = [ranked.c.rid.is_not(None), *(memories.c.text.icontains(t, autoescape=True) for t in terms.short)]
        relevance = func.coalesce(-ranked.c.rank / (1.0 - ranked.c.rank), 0.0)
    score = (terms_found + relevance).label("score")
    return (
        query.add_columns(score)
        .where(in_scope(scope, owner), or_(*matches))
        .order_by(score.desc(), memories.c.created_at.desc(), memories.c.id.desc())
        .limit(limit)
    )


def text_hash(text: str, owner: str | None = None) -> str:
    """The duplicate key of a (normalised) memory: SHA-256 of its folded form, so case and spacing do not count.

    An owner's memories hash with the owner in front, so two users may each save the same fact in a scope; a memory
    that changes owner (claimed, adopted at sign-in) is hashed again for its new owner.
    """
    folded = " ".join(fold(text).split())
    return hashlib.sha256((folded if owner is None else f"{owner}\0{folded}").encode("utf-8")).hexdigest()


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
