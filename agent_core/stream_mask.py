"""Masking streamed text: a secret split across deltas is still caught, because a short tail is held back.

Text goes out only up to a *safe point*: at least ``hold`` characters before the end, never inside the
last run of non-space characters (a key, a JWT or a URL may still be growing), and never inside a
secret the masker found. What goes out is masked with the findings of the whole recent window, so a
credential's name sent earlier still marks the value that follows it.
"""

from __future__ import annotations

import re

from agent_core.output_check import MASK, OutputCheck, SecretMasker

HOLD = 48
"""Characters always held back from the end of the stream until it finishes."""
LOOKBACK = 256
"""Characters before the safe point that are re-read for context (a name before its value)."""
_LAST_RUN = re.compile(r"\S*\Z")


class StreamMask:
    """Feed streamed pieces, get back the text that is safe to show now (masked); ``flush()`` at the end."""

    def __init__(self, check: OutputCheck | None) -> None:
        self.check = check
        self.text = ""
        """Everything received, unmasked."""
        self.sent = 0
        """How much of ``text`` went out."""

    def feed(self, piece: str) -> str:
        """Take ``piece``; return masked text that can be shown now (possibly empty)."""
        self.text += piece
        if self.check is None:
            return self._emit(len(self.text))
        if not isinstance(self.check, SecretMasker):
            return ""  # a custom check cannot tell where its findings are: show everything at the end
        safe = len(self.text) - HOLD
        safe = min(safe, _LAST_RUN.search(self.text).start())  # type: ignore[union-attr]
        return self._emit(safe) if safe > self.sent else ""

    def flush(self) -> str:
        """The rest, masked: the stream ended."""
        if self.check is not None and not isinstance(self.check, SecretMasker):
            return self.check(self.text, source="model_output").text if self.sent == 0 else ""
        return self._emit(len(self.text))

    def _emit(self, end: int) -> str:
        if self.check is None:
            out, self.sent = self.text[self.sent : end], end
            return out
        begin = max(0, self.sent - LOOKBACK)
        window = self.text[begin:]
        findings = self.check.find(window) if isinstance(self.check, SecretMasker) else []
        pieces, at = [], self.sent
        for finding in findings:
            start, stop = finding.start + begin, finding.end + begin
            if stop <= self.sent:
                continue
            if start < end < stop:
                end = start  # never cut a secret: it goes out whole, masked, with the next piece
                break
            if start >= end:
                break
            pieces.append(self.text[at : max(at, start)])
            pieces.append(finding.masked if start >= self.sent else MASK)
            at = stop
        pieces.append(self.text[at:end] if end > at else "")
        self.sent = max(self.sent, end, at)
        return "".join(pieces)
