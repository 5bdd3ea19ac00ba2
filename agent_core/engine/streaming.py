"""Reading one model reply: deltas batched for viewers, cancel honoured, a model-written Observation cut.

A reply arrives as many small chunks, so the work per chunk is kept to a few comparisons: the chunk is
appended, the cancel flag, the run's deadline and the delta interval are checked against one clock reading,
and the protocol is asked where to cut only when a chunk may end a label. Masking runs once per delta.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from agent_core.engine.protocols.protocol import AgentProtocol
from agent_core.events import ModelDelta
from agent_core.guards.limits import CancelToken, Deadline, RunStopped
from agent_core.guards.masking import OutputCheck, StreamMask
from agent_core.models.chat import ChatModel, Completion, ModelError, ModelRequest

_clock = time.monotonic  # the clock of Deadline, so one reading serves the deadline, the interval and the timing


class ReplyReader:
    """One model reply being read. ``deltas()`` yields its ModelDeltas; then ``completion`` holds the reply.

    When the reading fails (the model's error, a cancel, the time limit) ``failure`` holds why and ``text``
    what the model had written by then; the caller reports the step, then raises ``failure``.
    """

    def __init__(
        self,
        model: ChatModel,
        request: ModelRequest,
        protocol: AgentProtocol,
        *,
        run_id: str,
        step: int,
        cancel: CancelToken,
        interval: float,
        deadline: Deadline | None = None,
        check: OutputCheck | None = None,
    ) -> None:
        self.model, self.request, self.protocol, self.cancel, self.deadline = model, request, protocol, cancel, deadline
        self.shown = _Shown(run_id, step, interval, check)
        self.completion: Completion | None = None
        """The finished reply (None until the stream ended well)."""
        self.failure: ModelError | RunStopped | None = None
        """Why the reading stopped early (None when it did not)."""
        self.latency_ms = 0.0
        """Time spent inside the model's stream (not in whoever consumes the deltas)."""
        self.ttft_ms: float | None = None
        """Time to the first text, on the same clock."""
        self._away = 0.0

    @property
    def text(self) -> str:
        """The reply's text received so far (all of it once the stream ended)."""
        return self.shown.text

    def deltas(self) -> Iterator[ModelDelta]:
        """Yield the reply's deltas (at most one per interval); set ``completion``, or ``failure``, at the end."""
        began = _clock()
        try:
            with _closing(self.model.stream(self.request)) as stream:
                yield from self._read(stream, began)
        except (RunStopped, ModelError) as exc:
            self.failure = exc
            yield from self._away_for(self.shown.rest())  # what came before the failure stays
        finally:
            self.latency_ms = (_clock() - began - self._away) * 1000

    def _read(self, stream: Iterator[Any], began: float) -> Iterator[ModelDelta]:
        shown, cancel, at = self.shown, self.cancel, self._deadline_at()
        try:
            for item in stream:
                now = _clock()
                if isinstance(item, Completion):
                    yield from self._away_for(shown.rest())
                    self.completion = item
                    return
                if at is not None and now >= at:
                    raise _out_of_time(self.deadline)
                if cancel.cancelled:
                    raise RunStopped("cancelled", "cancelled by the user while the model was writing")
                if item.channel == "reasoning":
                    yield from self._away_for(shown.think(item.text))
                    continue
                piece = item.text
                if self.ttft_ms is None and piece:
                    self.ttft_ms = (now - began - self._away) * 1000
                shown.parts.append(piece)  # the common path is these few lines: no call per chunk
                if (":" in piece or "：" in piece) and (cut := shown.cut(self.protocol, len(piece))) is not None:
                    yield from self._away_for(shown.up_to(cut, now))  # the model writes its own Observation
                    self.completion = Completion(text=shown.text, finish_reason="stop_at_observation")
                    return
                shown.unfed.append(piece)
                if now - shown.last >= shown.interval:
                    yield from self._away_for(shown.batch(now))
        except ModelError as exc:
            if at is not None and _clock() >= at and exc.kind != "cancelled":
                raise _out_of_time(self.deadline) from None
            raise
        raise ModelError("server", f"model {self.model.name!r} ended without a completion")

    def _away_for(self, deltas: Iterable[ModelDelta]) -> Iterator[ModelDelta]:
        """Yield ``deltas``, not counting the time the consumer keeps us as the model's."""
        for delta in deltas:
            left = _clock()
            yield delta
            self._away += _clock() - left

    def _deadline_at(self) -> float | None:
        """When the run's time is up, on ``_clock`` (nothing extends it while a reply streams)."""
        left = None if self.deadline is None else self.deadline.remaining()
        return None if left is None else _clock() + left


@contextlib.contextmanager
def _closing(items: Iterable[Any]) -> Iterator[Iterator[Any]]:
    """An iterator over ``items`` that is closed (when it can be) however the reading ends."""
    stream = iter(items)
    try:
        yield stream
    finally:
        if (close := getattr(stream, "close", None)) is not None:
            close()


class _Shown:
    """The reply's text so far and the masked deltas sent for it (batched by ``interval``).

    The text is kept as a list of pieces (joined only when the whole is needed), so a long reply costs
    linear time, not the quadratic time of growing one string chunk by chunk.
    """

    def __init__(self, run_id: str, step: int, interval: float, check: OutputCheck | None) -> None:
        self.run_id, self.step, self.interval = run_id, step, interval
        self.parts: list[str] = []
        self.fed, self.pending, self.last = 0, "", 0.0
        self.unfed: list[str] = []
        """Pieces received since the last delta, not yet given to the mask."""
        self.mask, self.reasoning = StreamMask(check), StreamMask(check)

    @property
    def text(self) -> str:
        """Everything received so far."""
        if len(self.parts) > 1:
            self.parts = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""

    def cut(self, protocol: AgentProtocol, size: int) -> int | None:
        """Where to cut the text after a piece of ``size`` with a colon (None: nowhere); the protocol is asked
        only when a label may have just ended."""
        tail = self._tail(size + 16).lower()
        if "observation" not in tail and "观察" not in tail:
            return None
        return protocol.cut_index(self.text)

    def batch(self, now: float) -> Iterator[ModelDelta]:
        """The pieces received since the last delta, masked (masking runs once per delta, not once per chunk)."""
        self.pending += self.mask.feed("".join(self.unfed))
        self.fed += sum(map(len, self.unfed))
        self.unfed, self.last = [], now
        yield from self._send(now)

    def up_to(self, cut: int, now: float) -> Iterator[ModelDelta]:
        """The text up to ``cut``, masked and sent whole: the rest of the reply is dropped."""
        self.pending += self.mask.flush(self.text[self.fed : cut] if cut > self.fed else "")
        self.fed, self.unfed = max(self.fed, cut), []
        yield from self._send(now)

    def _send(self, now: float) -> Iterator[ModelDelta]:
        if self.pending:
            delta, self.pending, self.last = self._delta(self.pending), "", now
            yield delta

    def think(self, piece: str) -> Iterator[ModelDelta]:
        """A reasoning piece, masked the same way (sent at once)."""
        if shown := self.reasoning.feed(piece):
            yield self._delta(shown, "reasoning")

    def rest(self) -> Iterator[ModelDelta]:
        """The text not yet sent (the stream ended or was stopped), as last deltas."""
        if tail := self.reasoning.flush():
            yield self._delta(tail, "reasoning")
        text = self.text
        self.pending += self.mask.flush(text[self.fed :])  # one masking pass for the rest
        self.fed, self.unfed = len(text), []
        if self.pending:
            yield self._delta(self.pending)
            self.pending = ""

    def _tail(self, size: int) -> str:
        """The last ``size`` characters or more (whole pieces), without joining the whole text."""
        pieces, length = [], 0
        for piece in reversed(self.parts):
            pieces.append(piece)
            length += len(piece)
            if length >= size:
                break
        return "".join(reversed(pieces))[-size:]

    def _delta(self, text: str, channel: Literal["text", "reasoning"] = "text") -> ModelDelta:
        return ModelDelta(run_id=self.run_id, step=self.step, text=text, channel=channel)


def _out_of_time(deadline: Deadline | None) -> RunStopped:
    limit = f"{deadline.seconds:g} s" if deadline is not None and deadline.seconds is not None else "the time limit"
    return RunStopped("timeout", f"time limit of {limit} reached")  # the same sentence as between steps
