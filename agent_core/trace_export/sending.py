"""Sending spans to an OTLP/HTTP receiver: live, while a run happens, and a saved session's at once (the Traces page's
Send, ``export-trace --format otel``), the same way: through the optional OpenTelemetry packages (``pip install
'sparrow-agent[otel]'``, used by ``otel_sdk``, imported on first use) and the target the standard variables give
(``otlp.export_target``), so a session's live spans and its re-sent ones land under the same service, in the same
encoding. ``live_export(events)`` yields the events unchanged; when an endpoint is set, each span is built as soon as
it is complete — a model call at its ``model_finished``, a tool call at its ``tool_finished``, the run span at
``run_finished`` — and queued for sending, so a trace viewer shows the run growing. The spans are exactly those of
:func:`~agent_core.trace_export.otel.build_spans` (same ids), so exporting the session later gives the same trace.
The run's thread builds each span (from its own call only) and queues it; the SDK's batch processor and OTLP
exporter send it from their thread, retrying with backoff. Without an endpoint this costs nothing; with a dead one,
one warning, and when the senders' owner closes (the end of a CLI command, or the interpreter's exit) at most
``EXIT_WAIT_S`` seconds per receiver that answers.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Any

from agent_core.env_settings import env_settings
from agent_core.events import Event, ModelFinished, RunFinished, full_messages
from agent_core.models.pricing import DEFAULT_TABLE, PriceTable, env_prices_or_catalogue
from agent_core.process_resources import resources
from agent_core.trace_export.otel import SpanData, build_spans, call_span, run_span
from agent_core.trace_export.otlp import (
    ExportTarget,
    OtlpConfigError,
    capture_content,
    export_target,
    resource_attributes,
    scope,
)
from agent_core.views.transcript import Transcript
from agent_core.views.turns import ActionView

log = logging.getLogger("agent_core.trace_export.sending")

EXIT_WAIT_S = 3.0
"""At interpreter exit, how long the last spans may take to leave (less if the receiver is known to fail)."""


INSTALL_HINT = "pip install 'sparrow-agent[otel]'  (opentelemetry-sdk, opentelemetry-exporter-otlp-proto-http)"


class OtelUnavailable(ImportError):
    """Sending spans needs the optional OpenTelemetry packages, which are not installed."""


class OtelExportError(RuntimeError):
    """The OTLP endpoint did not accept the spans."""


def otel_sdk_available() -> bool:
    """True when the optional packages needed by :func:`send_otlp` are installed."""
    try:
        sdk_module()
    except OtelUnavailable:
        return False
    return True


def sdk_module() -> ModuleType:
    """The module that sends with the SDK, imported on demand (it needs the optional packages)."""
    try:
        return importlib.import_module("agent_core.trace_export.otel_sdk")
    except ImportError as exc:
        raise OtelUnavailable(
            f"sending traces to an OTLP endpoint needs the optional OpenTelemetry packages ({exc.name} is missing): "
            f"{INSTALL_HINT}. Without them, export OTLP/JSON to a file instead."
        ) from None


def send_otlp(
    events: Iterable[Event],
    *,
    endpoint: str | None = None,
    headers: Mapping[str, str] | None = None,
    timeout: float | None = None,
    service_name: str | None = None,
    **span_options: Any,
) -> int:
    """Send the spans of ``events`` to an OTLP/HTTP endpoint with the SDK's exporter; returns how many were sent.

    The standard variables apply as they do to live export (endpoint, ``OTEL_EXPORTER_OTLP_PROTOCOL``,
    headers, timeout, compression, certificates, ``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``); the
    arguments, when given, win. Raises :class:`OtelUnavailable` without the ``otel`` extra and
    :class:`OtelExportError` when the endpoint does not accept the spans (after the SDK's retries).
    """
    return send_spans(
        build_spans(events, **span_options),
        endpoint=endpoint,
        headers=headers,
        timeout=timeout,
        service_name=service_name,
    )


def send_spans(
    spans: Sequence[SpanData],
    *,
    endpoint: str | None = None,
    headers: Mapping[str, str] | None = None,
    timeout: float | None = None,
    service_name: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """Send already built spans (see :func:`send_otlp`)."""
    sdk = sdk_module()
    try:
        target = resend_target(environ, endpoint=endpoint, headers=headers, timeout=timeout, service_name=service_name)
    except OtlpConfigError as exc:
        raise OtelExportError(str(exc)) from None
    resource = {**resource_attributes(target.service_name), **dict(target.resource)}
    problem = sdk.export(sdk.as_readable(spans, resource, scope()), target)
    if problem is not None:
        raise OtelExportError(
            f"the OTLP endpoint {target.endpoint} did not accept {len(spans)} spans: {problem} "
            "(is an OTLP/HTTP receiver such as Jaeger, Phoenix, Langfuse or an OpenTelemetry Collector running there?)"
        )
    return len(spans)


def resend_target(environ: Mapping[str, str] | None = None, **given: Any) -> ExportTarget:
    """The live export's target (the same variables), with the ``given`` values that are not None on top."""
    env = env_settings(environ)
    env = env.model_copy(  # sending a saved trace is asked for explicitly: export may be off for live runs
        update={
            "otel_exporter_otlp_endpoint": env.otel_exporter_otlp_endpoint or "http://localhost:4318",
            "otel_sdk_disabled": False,
            "otel_traces_exporter": None,
        }
    )
    target = export_target(env)
    assert target is not None  # an endpoint is set and export is not turned off
    changes = {k: v for k, v in given.items() if v is not None}
    if "headers" in changes:
        changes["headers"] = tuple(dict(changes["headers"]).items())
    return replace(target, **changes)


class RunSpans:
    """Folds events (with the one transcript fold) and hands over each span once, when it is complete.

    Only the calls not handed over yet are looked at, and each span is built from its own call, so a step
    costs the same at step 1000 as at step 1; only the run span, at ``run_finished``, looks at the whole run.
    """

    def __init__(
        self,
        *,
        session_id: str | None = None,
        include_content: bool = False,
        prices: PriceTable = DEFAULT_TABLE,
        earlier: Iterable[Event] = (),
        started_by: str | None = None,
    ) -> None:
        self.include_content = include_content
        self.options: dict[str, Any] = {
            "session_id": session_id, "include_content": include_content, "prices": prices, "started_by": started_by,
        }  # fmt: skip
        self._transcript = Transcript()
        self._requests: dict[str, tuple[dict[str, Any], ...]] = {}
        self._progress: dict[str, _Progress] = {}
        for event in earlier:  # a resumed run: its spans so far were sent by the run it continues
            self.add(event, build=False)

    def add(self, event: Event, build: bool = True) -> list[SpanData]:
        """The spans ``event`` completes (often none); with ``build`` False, only keep count."""
        if self.include_content and isinstance(event, ModelFinished):
            event = self._with_full_messages(event)
        self._transcript.add(event)
        turn = self._transcript.run(event.run_id)
        assert turn is not None
        progress = self._progress.setdefault(event.run_id, _Progress())
        progress.pending += range(progress.seen, len(turn.calls))
        progress.seen = len(turn.calls)
        done = [i for i in progress.pending if _finished(turn.calls[i])]
        progress.pending = [i for i in progress.pending if i not in done]
        spans = [call_span(turn, i, **self.options) for i in done] if build else []
        if isinstance(event, RunFinished):
            del self._progress[event.run_id]
            if build:  # the run span, and the calls that never finished (as ``interrupted``)
                spans += [
                    run_span(turn, **self.options),
                    *(call_span(turn, i, **self.options) for i in progress.pending),
                ]
        return spans

    def _with_full_messages(self, event: ModelFinished) -> ModelFinished:
        full = full_messages(event, self._requests)
        return replace(event, messages=full, messages_kept=0) if event.messages_kept else event


@dataclass
class _Progress:
    """Which of a run's calls are still to be handed over."""

    seen: int = 0
    """How many of the run's calls have been looked at."""
    pending: list[int] = field(default_factory=list)
    """Calls started and not finished yet, by index."""


def _finished(call: ModelFinished | ActionView) -> bool:
    return isinstance(call, ModelFinished) or call.finished is not None


def live_export(
    events: Iterable[Event],
    *,
    session_id: str | None = None,
    include_content: bool | None = None,
    earlier: Iterable[Event] = (),
    environ: Mapping[str, str] | None = None,
    started_by: str | None = None,
) -> Iterator[Event]:
    """``events`` unchanged, their spans sent live when an OTLP endpoint is configured.

    ``include_content`` None follows ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``; ``earlier`` are
    the events of an interrupted run being resumed (their spans are not sent again); ``started_by`` names who
    started the run (``user.id`` on its span, as a later export of the session has it).
    """
    target = _target(environ)
    if target is None:
        return iter(events)
    content = capture_content(environ) if include_content is None else include_content
    prices = env_prices_or_catalogue(environ)
    spans = RunSpans(
        session_id=session_id, include_content=content, prices=prices, earlier=earlier, started_by=started_by
    )
    try:
        sender = sender_for(target)
    except OtelUnavailable as exc:
        _warn_once(f"live trace export is off: {exc}")
        return iter(events)
    return _exported(events, sender, spans)


def _exported(events: Iterable[Event], sender: Any, spans: RunSpans) -> Iterator[Event]:
    """Each event's finished spans are queued for the sender's thread; nothing here may reach the run."""
    for event in events:
        try:
            sender.add(spans.add(event))
        except Exception as exc:  # a bug in building spans must never reach the run
            _warn_once(f"live trace export: could not build spans ({type(exc).__name__}: {exc})")
        yield event


_lock = threading.Lock()
_warned: set[str] = set()


class Senders:
    """One sender (``otel_sdk.LiveSender``, a batch processor) per receiver, for the runs of one owner."""

    def __init__(self) -> None:
        self._senders: dict[ExportTarget, Any] = {}
        self._lock = threading.Lock()

    def sender_for(self, target: ExportTarget) -> Any:
        """The sender for ``target`` (made on first use)."""
        with self._lock:
            sender = self._senders.get(target)
            if sender is None:
                resource = {**resource_attributes(target.service_name), **dict(target.resource)}
                sender = self._senders[target] = sdk_module().LiveSender(target, resource, scope())
            return sender

    def close(self, timeout: float = EXIT_WAIT_S) -> None:
        """Send what is left (waiting at most ``timeout`` seconds per receiver that answers) and stop."""
        with self._lock:
            senders = list(self._senders.values())
            self._senders.clear()
        for sender in senders:
            sender.close(0.0 if sender.warned else timeout)


def senders() -> Senders:
    """The current owner's senders (closed with it: at most ``EXIT_WAIT_S`` seconds per receiver that answers)."""
    return resources().get("trace senders", Senders, Senders.close)


def sender_for(target: ExportTarget) -> Any:
    """The current owner's sender for ``target``."""
    return senders().sender_for(target)


def close_all(timeout: float = EXIT_WAIT_S) -> None:
    """Send what the current owner's senders hold (at most ``timeout`` s per receiver that answers) and stop them."""
    senders().close(timeout)


def _target(environ: Mapping[str, str] | None) -> ExportTarget | None:
    try:
        return export_target(environ)
    except OtlpConfigError as exc:
        _warn_once(f"live trace export is off: {exc}")
        return None


def _warn_once(message: str) -> None:
    with _lock:
        if message in _warned:
            return
        _warned.add(message)
    log.warning(message)
