"""Secrets masked in text before it is shown or stored (final answers, tool outputs, memories), whole or streamed.

An ``OutputCheck`` is any callable ``check(text, source=...) -> CheckResult``; the result carries the text to use
(possibly rewritten) and what was found. The default, ``SecretMasker``, finds credentials by their well-known
shapes (OpenAI, Anthropic, AWS, GitHub, Slack, Google, Stripe, Hugging Face keys, JWTs, "Bearer" tokens,
``password=...`` assignments, PEM private keys, random-looking keys) and the configured API key
(``register_secret``), and masks them keeping a short prefix, so a person can still tell which key leaked:
``sk-proj-a…[masked]``. Checks compose with ``chain``; ``check_value`` applies one to every string inside a
JSON-like value (tool ``details``). ``StreamMask`` masks streamed text: a secret split across deltas is still
caught, because text goes out only up to a safe point, never inside the trailing run of non-space characters
(a key may still be growing) nor inside a found secret, and the recent window is re-read for context, so a
credential's name sent earlier still marks the value that follows it.
"""

from __future__ import annotations

import itertools
import json
import logging
import math
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

MASK = "…[masked]"
ENTROPY_BITS = 4.3
"""Bits per character from which a 32+ character run without delimiters counts as an unknown key."""
LOWER_PAIRS = 0.4
"""Most share of neighbouring lower-case letter pairs in an unknown key (about 0.18 in a random one)."""

SOURCES = ("final_answer", "tool_output", "memory", "other")
"""The places a check is asked about; a check may treat them differently (e.g. stricter for memories)."""


@dataclass(frozen=True)
class Finding:
    """One thing a check flagged in a text."""

    kind: str
    """Machine name of what was found, e.g. "openai_key"."""
    label: str
    """Words for people, e.g. "OpenAI API key"."""
    start: int
    """Offset of the flagged part in the text the check was given."""
    end: int
    masked: str
    """What replaced it, e.g. "sk-a…[masked]"."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form for events and the store."""
        return {"kind": self.kind, "label": self.label, "start": self.start, "end": self.end, "masked": self.masked}


@dataclass(frozen=True)
class CheckResult:
    """The text to show or store (possibly rewritten), and what the check found."""

    text: str
    findings: tuple[Finding, ...] = ()

    @property
    def flagged(self) -> bool:
        """True when anything was found."""
        return bool(self.findings)


class OutputCheck(Protocol):
    """A hook that inspects text before it is shown or stored, and may rewrite it."""

    def __call__(self, text: str, *, source: str = "other") -> CheckResult:
        """Check ``text`` coming from ``source`` (one of SOURCES)."""
        ...


@dataclass(frozen=True)
class SecretPattern:
    """A kind of secret: a regex whose ``secret`` group (or whole match) is masked, keeping ``keep`` characters."""

    kind: str
    label: str
    regex: re.Pattern[str]
    keep: int
    """Characters of the secret left visible: the fixed prefix plus one, e.g. 4 for "sk-a"."""
    accept: Callable[[str], bool] | None = None
    """Extra test on the secret text, to turn away look-alikes (e.g. words without digits)."""


def _has_letter_and_digit(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _not_a_placeholder(value: str) -> bool:
    """Not ``****``, ``None``, ``${OPENAI_API_KEY}``, ``$TOKEN``, ``{{ secret }}`` and the like."""
    if value.startswith(("$", "{{", "%(", "os.environ", "process.env", "getenv")):
        return False
    return value.strip("*•x.<>{}").lower() not in ("", "none", "null", "redacted", "masked", "changeme", "hidden")


def _high_entropy(value: str) -> bool:
    """A random-looking key of an unknown shape: both cases, a digit or ``/+``, and near-random letter use.

    Shannon entropy of at least 4.3 bits a character over 32+ characters: random base64 or base62 keys (AWS
    secret access keys) pass; words, paths, hex hashes, dates and camel-case names stay below.
    """
    if not (any(c.islower() for c in value) and any(c.isupper() for c in value)):
        return False
    if not any(c.isdigit() or c in "/+" for c in value):
        return False
    lower_pairs = sum(a.islower() and b.islower() for a, b in itertools.pairwise(value))
    if lower_pairs > LOWER_PAIRS * (len(value) - 1):
        return False  # words run together (camelCase names, file names): random keys rarely do
    counts = Counter(value)
    entropy = -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
    return entropy >= ENTROPY_BITS


def _looks_random(value: str) -> bool:
    """Key-like: letters and digits mixed, or long; not a plain count such as ``max_tokens=4096``."""
    return _not_a_placeholder(value) and (_has_letter_and_digit(value) or (len(value) >= 16 and not value.isdigit()))


_NAME_BEFORE = r"(?<![A-Za-z0-9])"
"""A credential's name starts a word; ``_`` inside it is fine (``OPENAI_API_KEY``, ``DB_PASSWORD``)."""
_VALUE = r"(?P<secret>[^\s\"',;<>\[\]…`]"
"""The value's first character class (its length is appended where used)."""
_SEPARATOR = r"[\"']?\s*(?::|=|:=|=>)\s*[\"']?"
"""``=value``, ``: "value"``, ``:= value``, ``' => '``."""
_ASSIGNED = r"[\"']?\s*(?:=|:=|=>)\s*[\"']?"
"""Code or env-style assignment: ``DB_PASSWORD=…``, ``password = '…'``."""
_QUOTED = r"[\"']"
_QUOTED_VALUE = r"[\"']\s*:\s*[\"']"
"""JSON-style: ``"password": "…"``."""
_PASSWORD = r"(?i:[A-Za-z0-9_.\-]*(?:password|passwd|passphrase|pwd)[A-Za-z0-9_.\-]*)"
"""A name containing password/passwd/pwd. A bare ``password: hunter2`` in prose needs 8+ characters."""

_B = r"(?<![A-Za-z0-9_\-])"
"""Not in the middle of a longer word ("task-..." is not "sk-...")."""
_E = r"(?![A-Za-z0-9_\-])"


def _p(kind: str, label: str, pattern: str, keep: int, accept: Callable[[str], bool] | None = None) -> SecretPattern:
    return SecretPattern(kind, label, re.compile(pattern), keep, accept)


DEFAULT_PATTERNS: tuple[SecretPattern, ...] = (
    _p(
        "private_key",
        "PEM private key",
        r"(?P<head>-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)(?P<secret>\s*[A-Za-z0-9+/=][\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z))",
        0,
    ),
    _p("anthropic_key", "Anthropic API key", _B + r"sk-ant-[a-z]+\d*-[A-Za-z0-9_\-]{20,}" + _E, 8),
    _p("openai_key", "OpenAI API key", _B + r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}" + _E, 9),
    _p("openai_key", "OpenAI API key", _B + r"sk-[A-Za-z0-9]{20,}" + _E, 4),
    _p("api_key", "API key", _B + r"(?:sk|pk|rk|ak)-[A-Za-z]{2,12}-[A-Za-z0-9_\-]{16,}" + _E, 4, _has_letter_and_digit),
    _p("aws_access_key", "AWS access key ID", r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b", 5),
    _p(
        "aws_secret_key",
        "AWS secret access key",
        r"(?i:aws_?secret_?access_?key|aws_?secret)[\"']?\s*[:=]\s*[\"']?(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        4,
    ),
    _p("github_token", "GitHub token", _B + r"gh[pousr]_[A-Za-z0-9]{30,}" + _E, 5),
    _p("github_token", "GitHub token", _B + r"github_pat_[A-Za-z0-9_]{30,}" + _E, 12),
    _p("slack_token", "Slack token", _B + r"xox[abposre]-[A-Za-z0-9\-]{10,}" + _E, 5),
    _p("slack_token", "Slack app token", _B + r"xapp-\d-[A-Za-z0-9\-]{10,}" + _E, 7),
    _p("slack_webhook", "Slack webhook URL", r"hooks\.slack\.com/services/(?P<secret>T[A-Za-z0-9_/]{20,})", 1),
    _p("google_api_key", "Google API key", _B + r"AIza[0-9A-Za-z_\-]{35}" + _E, 5),
    _p("stripe_key", "Stripe secret key", _B + r"(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{20,}" + _E, 8),
    _p("huggingface_token", "Hugging Face token", _B + r"hf_[A-Za-z0-9]{30,}" + _E, 4),
    _p("jwt", "JSON Web Token", _B + r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", 4),
    _p(
        "bearer_token",
        "Bearer token",
        r"(?i:\bbearer)\s+(?P<secret>[A-Za-z0-9\-._~+/]{20,}=*)",
        4,
        _has_letter_and_digit,
    ),
    _p("stripe_key", "Stripe webhook secret", _B + r"whsec_[0-9A-Za-z]{20,}" + _E, 7),
    _p("url_password", "password in a URL", r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s/:@]+:(?P<secret>[^\s/@]+)@", 1),
    _p(
        "credential",
        "password or secret",
        _NAME_BEFORE + _PASSWORD + _ASSIGNED + _VALUE + "{3,}+)(?!…)",
        4,
        _not_a_placeholder,
    ),
    _p(
        "credential",
        "password or secret",
        _QUOTED + _PASSWORD + _QUOTED_VALUE + _VALUE + "{3,}+)(?!…)",
        4,
        _not_a_placeholder,
    ),
    _p("credential", "password or secret", _NAME_BEFORE + _PASSWORD + r"\s*:\s*" + _VALUE + "{8,}+)(?!…)", 4),
    _p(
        "credential",
        "password or secret",
        _NAME_BEFORE
        + r"(?i:[A-Za-z0-9_.\-]*(?:key|token|secret|credential|auth)[A-Za-z0-9_.\-]*)"
        + _SEPARATOR
        + _VALUE
        + "{8,}+)(?!…)",
        4,
        _looks_random,
    ),
    _p(
        "credential",
        "password or secret",
        _NAME_BEFORE
        + r"(?i:[A-Za-z0-9_.\-]*(?:secret|token|api_?key|credential)[A-Za-z0-9_.\-]*)"
        + _ASSIGNED
        + _VALUE
        + "{5,}+)(?!…)",
        4,
        _looks_random,
    ),
    _p(
        "high_entropy",
        "random-looking key",
        r"(?<![A-Za-z0-9/+_\-])(?P<secret>[A-Za-z0-9/+_\-]{32,512}={0,2})(?![A-Za-z0-9/+=_\-])",
        4,
        _high_entropy,
    ),
)
"""Specific shapes first: where two patterns overlap, the earlier pattern wins."""


_LONG_RUN = re.compile(r"[^\s\"',;<>\[\]…]{12}")
_NAMES = ("pass", "pwd", "key", "token", "secret", "credential", "auth", "://")


def _may_hold_secret(text: str) -> bool:
    """Whether a default pattern can match: it needs a run of 12+ characters without delimiters, or a credential's
    name. One regex and a few substring tests (the names on the case-folded text) instead of one regex with an
    alternation, which cannot skip ahead and costs several times more on every model reply and tool output."""
    if _LONG_RUN.search(text):
        return True
    folded = text.casefold()
    return any(map(folded.__contains__, _NAMES))  # no generator frame: this runs on every reply and tool output


_CONFIGURED: set[str] = set()
_CONFIGURED_LOCK = threading.Lock()


def register_secret(value: str | None) -> None:
    """Mask ``value`` wherever it appears from now on (the configured API key: events, output, exports, logs)."""
    if value and len(value) >= 6:
        with _CONFIGURED_LOCK:
            if not _CONFIGURED:
                _hide_in_logs()
            _CONFIGURED.add(value)


def _hide_in_logs() -> None:
    """Every log record formats its message with registered secrets hidden (whichever handler prints it)."""
    make_record = logging.getLogRecordFactory()

    def hiding_record(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make_record(*args, **kwargs)
        message = record.getMessage
        record.getMessage = lambda: hide_configured(message())
        return record

    logging.setLogRecordFactory(hiding_record)


def hide_configured(text: str) -> str:
    """``text`` with every registered secret (as written, and JSON-escaped) replaced by the mask."""
    for value in tuple(_CONFIGURED):
        for spelling in {value, json.dumps(value, ensure_ascii=False)[1:-1]}:
            if spelling in text:
                text = text.replace(spelling, value[:3] + MASK)
    return text


class HidingWriter:
    """A text stream wrapper that hides registered secrets in everything written through it."""

    def __init__(self, out: Any) -> None:
        self.out = out

    def write(self, text: str) -> int:
        """Write ``text`` with registered secrets hidden."""
        return int(self.out.write(hide_configured(text)))

    def flush(self) -> None:
        """Flush the wrapped stream."""
        self.out.flush()

    def isatty(self) -> bool:
        """Whether the wrapped stream is a terminal."""
        return bool(self.out.isatty())


def _configured_findings(text: str) -> list[tuple[int, int, str]]:
    found = []
    for value in tuple(_CONFIGURED):
        start = text.find(value)
        while start >= 0:
            found.append((start, start + len(value), value))
            start = text.find(value, start + len(value))
    return found


_CONFIGURED_KEY = SecretPattern("configured_key", "configured API key", re.compile("(?!)"), 3)


class SecretMasker:
    """The default output check: masks credentials found by ``patterns``, keeping a short prefix of each."""

    def __init__(self, patterns: Iterable[SecretPattern] = DEFAULT_PATTERNS) -> None:
        self.patterns = tuple(patterns)

    def __call__(self, text: str, *, source: str = "other") -> CheckResult:
        """``text`` with every secret masked, and one Finding per secret."""
        findings = self.find(text)
        if not findings:
            return CheckResult(text)
        pieces, last = [], 0
        for finding in findings:
            pieces.extend([text[last : finding.start], finding.masked])
            last = finding.end
        pieces.append(text[last:])
        return CheckResult("".join(pieces), tuple(findings))

    def find(self, text: str) -> list[Finding]:
        """Non-overlapping secrets in ``text``, in text order."""
        candidates = [(start, -1, end, _CONFIGURED_KEY, value) for start, end, value in _configured_findings(text)]
        if self.patterns is DEFAULT_PATTERNS and not candidates and not _may_hold_secret(text):
            return []  # no default pattern can match without such a run: skip the regexes
        for rank, pattern in enumerate(self.patterns):
            for match in pattern.regex.finditer(text):
                has_group = "secret" in pattern.regex.groupindex
                start, end = match.span("secret") if has_group else match.span()
                secret = text[start:end]
                if pattern.accept is None or pattern.accept(secret):
                    candidates.append((start, rank, end, pattern, secret))
        chosen: list[Finding] = []
        for start, _, end, pattern, secret in sorted(candidates, key=lambda c: (c[0], c[1])):
            if chosen and start < chosen[-1].end:
                continue
            masked = secret[: min(pattern.keep, len(secret) // 3)] + MASK
            chosen.append(Finding(pattern.kind, pattern.label, start, end, masked))
        return chosen


def chain(*checks: OutputCheck) -> OutputCheck:
    """One check that runs ``checks`` in order, each on the text the previous one produced."""

    def run(text: str, *, source: str = "other") -> CheckResult:
        findings: list[Finding] = []
        for check in checks:
            result = check(text, source=source)
            text = result.text
            findings.extend(result.findings)
        return CheckResult(text, tuple(findings))

    return run


def check_value(value: Any, check: OutputCheck, *, source: str = "other") -> tuple[Any, list[Finding]]:
    """Apply ``check`` to every string inside a JSON-like value (dicts, lists, tuples); returns a new value."""
    findings: list[Finding] = []

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            result = check(item, source=source)
            findings.extend(result.findings)
            return result.text
        if isinstance(item, dict):
            return {key: walk(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [walk(inner) for inner in item]
        if isinstance(item, tuple):
            return tuple(walk(inner) for inner in item)
        return item

    return walk(value), findings


default_check: OutputCheck = SecretMasker()
"""The check Sparrow uses unless configured otherwise."""


def mask_secrets(text: str) -> str:
    """``text`` with every secret the default patterns know masked."""
    return default_check(text).text


# --- streamed text -------------------------------------------------------------------------------------------------

HOLD = 0
"""Characters held back from the end beyond the trailing run. 0: the trailing run, the lookback and the rule
that a found secret is never cut already catch every split secret (property-tested), and any fixed hold
delays every streamed token (48 characters cost ~400 ms at one token per 50 ms in bench/browser_latency.py)."""
LOOKBACK = 256
"""Characters before the safe point that are re-read for context (a name before its value)."""
MAX_RUN = 8192
"""Longest run of non-space characters held back whole (longer runs go out in parts)."""
FIRST_BATCH = 32
"""Fewest characters the first piece of a stream must make safe to go out at once; later pieces go out as
soon as anything is safe. A reply that arrives in one piece then arrives as one delta, and a live stream
pays at most one token of delay, on its first token only."""
_KEEP = 4096
"""Slack before the buffer drops text that is past the lookback."""


class StreamMask:
    """Feed streamed pieces, get back the text that is safe to show now (masked); ``flush()`` at the end."""

    def __init__(self, check: OutputCheck | None) -> None:
        self.check = check
        self.buffer = ""
        """The received text from absolute position ``start`` on (older text was sent and is out of reach)."""
        self.start = 0
        self.sent = 0
        """Absolute position up to which text went out."""
        self.pieces = 0

    def feed(self, piece: str) -> str:
        """Take ``piece``; return masked text that can be shown now (possibly empty)."""
        self.buffer += piece
        self.pieces += 1
        if self.check is None:
            return self._emit(self.start + len(self.buffer))
        if not isinstance(self.check, SecretMasker):
            return ""  # a custom check cannot tell where its findings are: show everything at the end
        safe = min(self.start + len(self.buffer) - HOLD, self._last_run())
        return self._emit(safe) if safe - self.sent >= (FIRST_BATCH if self.pieces == 1 else 1) else ""

    def flush(self, piece: str = "") -> str:
        """The rest (with a last ``piece``), masked: the stream ended."""
        self.buffer += piece
        if self.check is not None and not isinstance(self.check, SecretMasker):
            return self.check(self.buffer, source="model_output").text if self.sent == 0 else ""
        return self._emit(self.start + len(self.buffer))

    def _last_run(self) -> int:
        """Absolute position where the trailing run of non-space characters starts (at most MAX_RUN back)."""
        at, stop = len(self.buffer), max(0, len(self.buffer) - MAX_RUN, self.sent - self.start)
        while at > stop and not self.buffer[at - 1].isspace():
            at -= 1
        return self.start + at

    def _emit(self, end: int) -> str:
        begin = max(self.start, self.sent - LOOKBACK)
        if self.check is None:
            out = self.buffer[self.sent - self.start : end - self.start]
            self.sent = end
        else:
            out = self._masked(begin, end)
        self._trim()
        return out

    def _masked(self, begin: int, end: int) -> str:
        window = self.buffer[begin - self.start :]
        findings = self.check.find(window) if isinstance(self.check, SecretMasker) else []
        pieces, at = [], self.sent
        for finding in findings:
            first, stop = finding.start + begin, finding.end + begin
            if stop <= self.sent:
                continue
            if first < end < stop:
                end = first  # never cut a secret: it goes out whole, masked, with a later piece
                break
            if first >= end:
                break
            pieces.append(self._slice(at, max(at, first)))
            pieces.append(finding.masked if first >= self.sent else MASK)
            at = stop
        pieces.append(self._slice(at, end) if end > at else "")
        self.sent = max(self.sent, end, at)
        return "".join(pieces)

    def _slice(self, begin: int, end: int) -> str:
        return self.buffer[begin - self.start : end - self.start]

    def _trim(self) -> None:
        drop = self.sent - LOOKBACK - self.start
        if drop > _KEEP and (self.check is None or isinstance(self.check, SecretMasker)):
            self.buffer = self.buffer[drop:]
            self.start += drop
