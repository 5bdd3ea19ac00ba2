"""A dataset item and its checks, validated like a session file: one clear sentence per problem.

An item is a question (optionally with earlier turns), what is expected (an ``answer`` and/or ``expect``:
one check or a list of them), tags and free metadata::

    {"id": "mul", "question": "What is 17 * 23?", "expect": {"contains": "391"}, "tags": ["arithmetic"]}
    {"question": "...", "expect": [{"number": 4.44, "tolerance": 0.01}, {"tool_called": "calculator"}]}

An item with only an ``answer`` is checked with ``exact`` (normalised) against it.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

MAX_QUESTION_CHARS = 20_000
MAX_TURNS = 50
MAX_CHECKS = 20
MAX_TAGS = 20
KINDS = (
    "exact",
    "contains",
    "regex",
    "number",
    "json_field",
    "tool_called",
    "tool_not_called",
    "max_steps",
    "no_format_retries",
    "max_cost",
    "max_latency_ms",
    "judge",
    "scorer",
)
"""The kinds of check; each check object names exactly one of them."""


class Check(BaseModel):
    """One thing an answer or run must satisfy; exactly one kind is set (the other fields refine it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    exact: str | None = Field(default=None, max_length=MAX_QUESTION_CHARS)
    """The answer equals this, after normalising case, spaces and trailing punctuation."""
    contains: str | None = Field(default=None, min_length=1, max_length=MAX_QUESTION_CHARS)
    """The answer contains this (case-insensitive unless ``case_sensitive``)."""
    regex: str | None = Field(default=None, min_length=1, max_length=2000)
    """The answer matches this Python regular expression somewhere."""
    number: int | float | None = None
    """Some number in the answer (``1,048,576``, ``4.44``, ``-3``) is within ``tolerance`` of this."""
    tolerance: float = Field(default=1e-9, ge=0)
    json_field: str | None = Field(default=None, min_length=1, max_length=200)
    """A dotted path (``a.b.0``) into the answer read as JSON; its value must equal ``equals``."""
    equals: Any = None
    tool_called: str | None = Field(default=None, min_length=1, max_length=100)
    """The run called this tool at least once."""
    tool_not_called: str | None = Field(default=None, min_length=1, max_length=100)
    max_steps: int | None = Field(default=None, ge=1)
    no_format_retries: bool | None = None
    """True: no model reply in the run broke the protocol's format."""
    max_cost: float | None = Field(default=None, ge=0)
    """Dollars the run may cost at most (an unpriced model fails this check, saying so)."""
    max_latency_ms: float | None = Field(default=None, ge=0)
    judge: str | None = Field(default=None, min_length=1, max_length=5000)
    """A rubric: a judge model reads the question, the answer (and the expected one) and says PASS or FAIL, why."""
    scorer: str | None = Field(default=None, min_length=1, max_length=100)
    """The name of a custom ``@scorer``."""
    case_sensitive: bool = False

    @model_validator(mode="after")
    def _one_kind(self) -> Check:
        named = [k for k in KINDS if getattr(self, k) is not None]
        if len(named) != 1:
            got = ", ".join(named) or "none"
            raise ValueError(f"a check names exactly one of {', '.join(KINDS)} (this one names {got})")
        if self.regex is not None:
            try:
                re.compile(self.regex)
            except re.error as exc:
                raise ValueError(f"the regex {self.regex!r} does not compile ({exc})") from None
        return self

    @property
    def kind(self) -> str:
        """The kind of check this is (``contains``, ``number``...)."""
        return next(k for k in KINDS if getattr(self, k) is not None)

    def spec(self) -> dict[str, Any]:
        """The check as written in a dataset file (defaults left out)."""
        return self.model_dump(exclude_defaults=True)


class EarlierTurn(BaseModel):
    """A question and answer the conversation already holds when the item's question is asked."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    answer: str = Field(default="", max_length=MAX_QUESTION_CHARS)


class DatasetItem(BaseModel):
    """One question of a dataset and what is expected of its answer."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.\-]{1,64}$")
    """The item's own id; ``item-N`` (its 1-based position) when left out."""
    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    turns: tuple[EarlierTurn, ...] = Field(default=(), max_length=MAX_TURNS)
    answer: str | None = Field(default=None, max_length=MAX_QUESTION_CHARS)
    """The expected answer: checked with ``exact`` unless ``expect`` says otherwise; a judge sees it too."""
    expect: tuple[Check, ...] = Field(default=(), max_length=MAX_CHECKS)
    tags: tuple[str, ...] = Field(default=(), max_length=MAX_TAGS)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("expect", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, dict) else value

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the question is blank")
        return value

    @model_validator(mode="after")
    def _something_to_check(self) -> DatasetItem:
        if self.answer is None and not self.expect:
            raise ValueError('the item has nothing to check: give an "answer" or an "expect"')
        return self

    @property
    def checks(self) -> tuple[Check, ...]:
        """What is checked: ``expect``, else ``exact`` against the answer."""
        return self.expect or (Check(exact=self.answer),)

    def record(self) -> dict[str, Any]:
        """The item as a dataset file line holds it (defaults left out)."""
        data = self.model_dump(exclude_defaults=True, exclude={"expect"})
        if self.expect:
            specs = [c.spec() for c in self.expect]
            data["expect"] = specs[0] if len(specs) == 1 else specs
        return data


def problems_of(exc: ValidationError, where: str) -> list[str]:
    """Each validation error as one sentence naming where it is (``line 3: question: ...``)."""
    out = []
    for error in exc.errors():
        loc = ".".join(str(p) for p in error.get("loc", ()))
        message = str(error.get("msg", "is invalid")).removeprefix("Value error, ")
        out.append(f"{where}: {loc + ': ' if loc else ''}{message}")
    return out
