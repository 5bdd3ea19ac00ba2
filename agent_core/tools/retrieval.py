"""Tool retrieval: with many tools registered, offer the model only the most relevant ones for each step.

Relevance is Okapi BM25 (k1=1.2, b=0.75) of the query (the question plus the latest thought) against each
tool's name (counted twice), description, and parameter names, descriptions and allowed values. It runs
locally in well under a millisecond for a hundred tools, so it needs no network and no embedding model.
BM25 takes a dozen lines here; the rank-bm25 package would add numpy for no gain at this size.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from agent_core.tools.tool import Tool

K1 = 1.2
B = 0.75
NAME_WEIGHT = 2
"""How many times a tool's name words count: a query word in the name matters more than one in prose."""

_STOP_WORDS = (
    "a an and are as at be by can do does for from get how i in is it me my of on or please show tell that the this "
    "to use using what when where which who why will with you your"
)
_STOP = frozenset(_STOP_WORDS.split())
_WORDS = re.compile(r"[a-z0-9]+|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")


def tokenize(text: str) -> list[str]:
    """Lower-case terms: snake_case and camelCase split, stop words dropped, plurals folded, CJK as bigrams."""
    terms: list[str] = []
    for word in _WORDS.findall(_CAMEL.sub(r"\1 \2", text).lower()):
        if word[0] > "\u3000":
            terms.extend(word if len(word) == 1 else (word[i : i + 2] for i in range(len(word) - 1)))
        elif word not in _STOP:
            terms.append(_fold(word))
    return terms


def _fold(word: str) -> str:
    if len(word) <= 3 or not word.endswith("s") or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    return word[:-1]


def tool_text(tool: Tool) -> str:
    """The words a tool is found by: description and parameters (names, descriptions, allowed values)."""
    parts = [tool.description]
    for name, spec in tool.parameters.get("properties", {}).items():
        parts.extend([name, str(spec.get("description", "")), *_enum_values(spec)])
    return " ".join(parts)


def _enum_values(spec: dict[str, Any]) -> list[str]:
    values = list(spec.get("enum", []))
    for option in spec.get("anyOf", []):
        values.extend(option.get("enum", []))
    return [str(v) for v in values]


class ToolIndex:
    """A BM25 index over a fixed list of tools: build once, then rank or select per step."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        self.tools = list(tools)
        self._docs = [Counter(tokenize(t.name) * NAME_WEIGHT + tokenize(tool_text(t))) for t in self.tools]
        lengths = [sum(doc.values()) for doc in self._docs]
        self._lengths = lengths
        self._average = (sum(lengths) / len(lengths)) if lengths else 0.0
        frequency: Counter[str] = Counter(term for doc in self._docs for term in doc)
        count = len(self._docs)
        self._idf = {term: math.log(1 + (count - df + 0.5) / (df + 0.5)) for term, df in frequency.items()}

    def scores(self, query: str) -> list[float]:
        """The BM25 score of every tool for ``query``, in tool order (0.0 when no term matches)."""
        terms = set(tokenize(query)) & self._idf.keys()
        result = []
        for doc, length in zip(self._docs, self._lengths, strict=True):
            norm = K1 * (1 - B + B * length / self._average) if self._average else K1
            result.append(sum(self._idf[t] * doc[t] * (K1 + 1) / (doc[t] + norm) for t in terms if t in doc))
        return result

    def select(self, query: str, *, limit: int, pinned: Iterable[str] = ()) -> list[Tool]:
        """Pinned tools plus the best matches, ``limit`` in all, in registration order (ties: earlier first)."""
        if limit < 1:
            raise ValueError("the tool limit must be at least 1")
        if len(self.tools) <= limit:
            return list(self.tools)
        keep = set(pinned)
        chosen = {i for i, t in enumerate(self.tools) if t.name in keep}
        scores = self.scores(query)
        for i in sorted(range(len(self.tools)), key=lambda i: (-scores[i], i)):
            if len(chosen) >= limit:
                break
            chosen.add(i)
        return [t for i, t in enumerate(self.tools) if i in chosen]


@lru_cache(maxsize=16)
def _index(tools: tuple[Tool, ...]) -> ToolIndex:
    return ToolIndex(tools)


def select_tools(tools: Sequence[Tool], query: str, *, limit: int, pinned: Iterable[str] = ()) -> list[Tool]:
    """The tools to offer for ``query``: all of them if they fit in ``limit``, else pinned + best BM25 matches.

    The result keeps registration order, so the prompt stays stable from step to step. Pinned tools always
    stay, even beyond ``limit``; slots left after the matching tools go to the earliest registered ones.
    """
    return _index(tuple(tools)).select(query, limit=limit, pinned=pinned)
