"""Reading one model reply: deltas batched for viewers, cancel honoured, a model-written Observation cut."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Iterator
from typing import Any

from agent_core.events import ModelDelta
from agent_core.limits import CancelToken, RunStopped
from agent_core.models.base import ChatModel, Completion, ModelRequest
from agent_core.models.errors import ModelError
from agent_core.protocols.base import AgentProtocol


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
) -> Iterator[ModelDelta]:
    """Yield the reply's deltas (at most one per ``interval`` seconds); return its Completion."""
    text, shown, last_shown = "", 0, 0.0
    with _closing(model.stream(request)) as stream:
        while True:
            item = timing.next(stream)
            if item is None:
                raise ModelError("server", f"model {model.name!r} ended without a completion")
            if isinstance(item, Completion):
                if len(text) > shown:
                    yield ModelDelta(run_id=run_id, step=step, text=text[shown:])
                return item
            if cancel.cancelled:
                raise RunStopped("cancelled", "cancelled by the user while the model was writing")
            if item.channel == "reasoning":
                yield ModelDelta(run_id=run_id, step=step, text=item.text, channel="reasoning")
                continue
            text += item.text
            cut = _cut(protocol, text, item.text)
            end = len(text) if cut is None else cut
            if end > shown and (cut is not None or (now := time.perf_counter()) - last_shown >= interval):
                yield ModelDelta(run_id=run_id, step=step, text=text[shown:end])
                shown, last_shown = end, time.perf_counter() if cut is not None else now
            if cut is not None:  # the model is writing its own Observation: stop reading
                return Completion(text=text, finish_reason="stop_at_observation")


@contextlib.contextmanager
def _closing(items: Iterable[Any]) -> Iterator[Iterator[Any]]:
    """An iterator over ``items`` that is closed (when it can be) however the reading ends."""
    stream = iter(items)
    try:
        yield stream
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()


def _cut(protocol: AgentProtocol, text: str, piece: str) -> int | None:
    """Where to cut streamed text; the protocol is asked only when a label may have just ended."""
    if ":" not in piece and "：" not in piece:
        return None
    tail = text[-(len(piece) + 16) :].lower()
    if "observation" not in tail and "观察" not in tail:
        return None
    return protocol.cut_index(text)
