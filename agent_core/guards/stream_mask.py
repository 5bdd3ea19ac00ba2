"""Masking streamed text: a secret split across deltas is still caught, because a short tail is held back.

Text goes out only up to a *safe point*: never inside the last run of non-space characters (a key, a JWT or
a URL may still be growing; up to MAX_RUN characters),
and never inside a secret the masker found. What goes out is masked with the findings of the recent
window, so a credential's name sent earlier still marks the value that follows it. Only that window is
kept: a long reply costs linear time.
"""

from __future__ import annotations

from agent_core.guards.output_check import MASK, OutputCheck, SecretMasker

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
