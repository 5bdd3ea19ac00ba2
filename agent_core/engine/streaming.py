"""Reading one model reply: deltas batched for viewers, cancel honoured, a model-written Observation cut."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from agent_core.engine.protocols.protocol import AgentProtocol
from agent_core.events import ModelDelta
from agent_core.guards.limits import CancelToken, Deadline, RunStopped
from agent_core.guards.output_check import OutputCheck
from agent_core.guards.stream_mask import StreamMask
from agent_core.models.chat_model import ChatModel, Completion, ModelRequest
from agent_core.models.model_errors import ModelError


class Timing:
    """Time spent inside the model's stream only (not in whoever consumes the events)."""

    def __init__(self) -> None:
        self.total_ms = 0.0
        self.first_ms: float | None = None

    def next(self, stream: Iterator[Any]) -> Any:
        """The stream's next item (None at its end), timed."""
        begin = time.perf_counter()
        try:
            item = next(stream, None)
        finally:
            self.total_ms += (time.perf_counter() - begin) * 1000
        if self.first_ms is None and item is not None and not isinstance(item, Completion) and item.text:
            self.first_ms = self.total_ms
        return item


def stream_reply(
    model: ChatModel,
    request: ModelRequest,
    protocol: AgentProtocol,
    *,
    run_id: str,
    step: int,
    cancel: CancelToken,
    timing: Timing,
    interval: float,
    deadline: Deadline | None = None,
    check: OutputCheck | None = None,
) -> Iterator[ModelDelta]:
    """Yield the reply's deltas (at most one per ``interval`` s) and return its Completion, within ``deadline``."""
    shown = _Shown(run_id, step, interval, check)
    with _closing(model.stream(request)) as stream:
        try:
            while True:
                item = _next_in_time(timing, stream, deadline)
                if item is None:
                    raise ModelError("server", f"model {model.name!r} ended without a completion")
                if isinstance(item, Completion):
                    yield from shown.rest()
                    return item
                if cancel.cancelled:
                    raise RunStopped("cancelled", "cancelled by the user while the model was writing")
                if item.channel == "reasoning":
                    yield from shown.think(item.text)
                    continue
                shown.take(item.text)
                cut = _cut(protocol, shown, item.text)
                yield from shown.add(item.text, cut)
                if cut is not None:  # the model is writing its own Observation: stop reading
                    return Completion(text=shown.text, finish_reason="stop_at_observation")
        except (RunStopped, ModelError) as exc:
            yield from shown.rest()  # what the model wrote before the limit, the cancel or the failure stays
            exc.partial_text = shown.text
            raise


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
        self.tail, self.fed, self.pending, self.last = "", 0, "", 0.0
        self.unfed: list[str] = []
        """Pieces received since the last delta, not yet given to the mask."""
        self.mask, self.reasoning = StreamMask(check), StreamMask(check)

    @property
    def text(self) -> str:
        """Everything received so far."""
        if len(self.parts) > 1:
            self.parts = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""

    def take(self, piece: str) -> None:
        """Receive ``piece`` (before asking where to cut)."""
        self.parts.append(piece)
        self.tail = (self.tail + piece)[-_TAIL:]

    def add(self, piece: str, cut: int | None) -> Iterator[ModelDelta]:
        """Mask ``piece`` (or the text up to ``cut``); yield a delta when the interval has passed, or at a cut."""
        now = time.perf_counter()
        if cut is None:
            self.unfed.append(piece)
            if now - self.last < self.interval:
                return  # masking runs once per delta, not once per chunk
            self.pending += self.mask.feed("".join(self.unfed))
            self.fed += sum(map(len, self.unfed))
            self.last = now
        else:
            if cut > self.fed:
                self.pending += self.mask.feed(self.text[self.fed : cut])
                self.fed = cut
            self.pending += self.mask.flush()
        self.unfed = []
        if self.pending:
            yield self._delta(self.pending)
            self.pending, self.last = "", now

    def think(self, piece: str) -> Iterator[ModelDelta]:
        """A reasoning piece, masked the same way (sent at once)."""
        if shown := self.reasoning.feed(piece):
            yield self._delta(shown, "reasoning")

    def rest(self) -> Iterator[ModelDelta]:
        """The text not yet sent (the stream ended or was stopped), as last deltas."""
        if tail := self.reasoning.flush():
            yield self._delta(tail, "reasoning")
        text = self.text
        self.pending += self.mask.feed(text[self.fed :]) + self.mask.flush()
        self.fed = len(text)
        if self.pending:
            yield self._delta(self.pending)
            self.pending = ""

    def _delta(self, text: str, channel: Literal["text", "reasoning"] = "text") -> ModelDelta:
        return ModelDelta(run_id=self.run_id, step=self.step, text=text, channel=channel)


_TAIL = 256
"""Characters of the end of the reply kept at hand, for the cheap check before looking for an Observation."""


def _next_in_time(timing: Timing, stream: Iterator[Any], deadline: Deadline | None) -> Any:
    """The stream's next item; RunStopped("timeout") once the run's time is up, whatever the model does."""
    try:
        item = timing.next(stream)
    except ModelError as exc:
        if deadline is not None and deadline.expired and exc.kind != "cancelled":
            raise _out_of_time(deadline) from None
        raise
    if deadline is not None and deadline.expired and not isinstance(item, Completion):
        raise _out_of_time(deadline)
    return item


def _out_of_time(deadline: Deadline) -> RunStopped:
    limit = f"{deadline.seconds:g} s" if deadline.seconds is not None else "the time limit"
    return RunStopped("timeout", f"time limit of {limit} reached")  # the same sentence as between steps


def _cut(protocol: AgentProtocol, shown: _Shown, piece: str) -> int | None:
    """Where to cut streamed text; the protocol is asked only when a label may have just ended."""
    if ":" not in piece and "：" not in piece:
        return None
    size = len(piece) + 16
    tail = (shown.tail if size <= _TAIL else shown.text)[-size:].lower()
    if "observation" not in tail and "观察" not in tail:
        return None
    return protocol.cut_index(shown.text)
