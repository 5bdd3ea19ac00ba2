"""Live trace export: a run's spans go to an OTLP/HTTP receiver while the run happens.

``live_export(events)`` yields the events unchanged. When ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) is set, each event is also queued for a background thread that
builds each span as soon as it is complete — a model call at its ``model_finished``, a tool call at its
``tool_finished``, the run span at ``run_finished`` — and sends it, so a trace viewer shows the run
growing. The spans are exactly those of :func:`~agent_core.trace_export.otel.build_spans` (same ids), so
exporting the session later gives the same trace. Without an endpoint this costs nothing; with a dead
one, one warning (see ``span_sender``).
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Literal

from agent_core.events import (
    Event,
    ModelDelta,
    ModelFinished,
    RunFinished,
    RunStarted,
    ToolFinished,
    ToolStarted,
    full_messages,
)
from agent_core.pricing import DEFAULT_TABLE, PriceTable, PricingError, prices_from_env
from agent_core.trace_export.otel import SpanData, build_spans, child_span_id
from agent_core.trace_export.otlp_env import ExportTarget, OtlpConfigError, capture_content, export_target
from agent_core.trace_export.otlp_http import send_batch
from agent_core.trace_export.span_sender import SpanSender

log = logging.getLogger("agent_core.trace_export.live")

EXIT_WAIT_S = 3.0
"""At interpreter exit, how long the last spans may take to leave (less if the receiver is known to fail)."""


class RunSpans:
    """Folds events into spans and hands over each span once, when it is complete.

    Each call's span is built from that call's own events (and the run's ``run_started``), so a step costs
    the same at step 1000 as at step 1; only the run span, at ``run_finished``, looks at the whole run.
    """

    def __init__(
        self,
        *,
        session_id: str | None = None,
        include_content: bool = False,
        prices: PriceTable = DEFAULT_TABLE,
        earlier: Iterable[Event] = (),
    ) -> None:
        self.session_id, self.include_content, self.prices = session_id, include_content, prices
        self._runs: dict[str, _RunState] = {}
        for event in earlier:  # a resumed run: its spans so far were sent by the run it continues
            self.add(event)

    def add(self, event: Event, build: bool = True) -> list[SpanData]:
        """The spans ``event`` completes (often none); with ``build`` False, only keep count."""
        if isinstance(event, ModelDelta):
            return []
        run = self._runs.setdefault(event.run_id, _RunState())
        run.events.append(event)
        if isinstance(event, RunStarted):
            run.started = event
        elif isinstance(event, ModelFinished):
            index, full = run.next_index(), self._with_full_messages(run, event)
            return self._call_span(run, "model", index, full) if build else []
        elif isinstance(event, ToolStarted):
            run.tools[(event.step, event.call_id)] = (run.next_index(), event)
        elif isinstance(event, ToolFinished):
            index, begun = run.tools.pop((event.step, event.call_id), None) or (run.next_index(), None)
            return self._call_span(run, "tool", index, *([begun] if begun else []), event) if build else []
        elif isinstance(event, RunFinished):
            del self._runs[event.run_id]
            return self._rest_of_run(run) if build else []
        return []

    def _call_span(self, run: _RunState, kind: Literal["model", "tool"], index: int, *events: Event) -> list[SpanData]:
        """The one call span of ``events``, with the id it has among all the run's calls."""
        spans = self._build([*([run.started] if run.started else []), *events])
        child = next(s for s in spans if s.parent_span_id is not None)
        span = replace(child, span_id=child_span_id(self.session_id, events[0].run_id, kind, index))
        run.handed.add(span.span_id)
        return [span]

    def _rest_of_run(self, run: _RunState) -> list[SpanData]:
        """At the run's end: its run span, and the calls that never finished (as ``interrupted``)."""
        return [s for s in self._build(run.events) if s.span_id not in run.handed]

    def _with_full_messages(self, run: _RunState, event: ModelFinished) -> ModelFinished:
        if not self.include_content:
            return event
        full = full_messages(event, run.requests)
        return replace(event, messages=full, messages_kept=0) if event.messages_kept else event

    def _build(self, events: list[Event]) -> list[SpanData]:
        options = {"session_id": self.session_id, "include_content": self.include_content, "prices": self.prices}
        return build_spans(events, **options)  # type: ignore[arg-type]


@dataclass
class _RunState:
    """What RunSpans keeps of one run in progress."""

    events: list[Event] = field(default_factory=list)
    started: RunStarted | None = None
    calls: int = 0
    tools: dict[tuple[int, str], tuple[int, ToolStarted]] = field(default_factory=dict)
    """Tool calls started and not finished: their index among the run's calls, and their start."""
    requests: dict[str, tuple[dict[str, Any], ...]] = field(default_factory=dict)
    handed: set[str] = field(default_factory=set)

    def next_index(self) -> int:
        """The index of the call that starts now (calls are counted in the order they start)."""
        self.calls += 1
        return self.calls - 1


def live_export(
    events: Iterable[Event],
    *,
    session_id: str | None = None,
    include_content: bool | None = None,
    earlier: Iterable[Event] = (),
    environ: Mapping[str, str] | None = None,
) -> Iterator[Event]:
    """``events`` unchanged, their spans sent live when an OTLP endpoint is configured.

    ``include_content`` None follows ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``; ``earlier`` are
    the events of an interrupted run being resumed (their spans are not sent again).
    """
    target = _target(environ)
    if target is None:
        return iter(events)
    content = capture_content(environ) if include_content is None else include_content
    spans = RunSpans(session_id=session_id, include_content=content, prices=_prices(environ), earlier=earlier)
    return _exported(events, sender_for(target), spans)


def _exported(events: Iterable[Event], sender: SpanSender, spans: RunSpans) -> Iterator[Event]:
    """The run's thread only queues events: spans are built, encoded and sent in the sender's thread."""
    for event in events:
        if not isinstance(event, ModelDelta):
            sender.add(spans.add, event)
        if isinstance(event, RunFinished):
            sender.flush_soon()
        yield event


_lock = threading.Lock()
_senders: dict[ExportTarget, SpanSender] = {}
_warned: set[str] = set()


def sender_for(target: ExportTarget) -> SpanSender:
    """The process's sender for ``target`` (one thread per receiver, flushed at exit)."""
    with _lock:
        sender = _senders.get(target)
        if sender is None:
            if not _senders:
                atexit.register(close_all)
            sender = _senders[target] = SpanSender(partial(send_batch, target=target), delay=target.delay)
        return sender


def close_all(timeout: float = EXIT_WAIT_S) -> None:
    """Send what is left (waiting at most ``timeout`` seconds per receiver that answers) and stop."""
    with _lock:
        senders = list(_senders.values())
        _senders.clear()
    for sender in senders:
        sender.close(0.0 if sender.failing else timeout)


def _target(environ: Mapping[str, str] | None) -> ExportTarget | None:
    try:
        return export_target(environ)
    except OtlpConfigError as exc:
        _warn_once(f"live trace export is off: {exc}")
        return None


def _prices(environ: Mapping[str, str] | None) -> PriceTable:
    try:
        return prices_from_env(environ)
    except PricingError:
        return DEFAULT_TABLE  # the CLI and the app report a bad SPARROW_PRICES themselves


def _warn_once(message: str) -> None:
    with _lock:
        if message in _warned:
            return
        _warned.add(message)
    log.warning(message)
