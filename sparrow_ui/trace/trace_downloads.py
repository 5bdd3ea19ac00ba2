"""Trace export from the Traces page: the HTML report, JSON Lines, OTLP/JSON and Markdown to download, OTLP to send.

Downloads use the callable ``data=`` of ``st.download_button``: nothing is read or converted until the
button is clicked, and then the session's events are read afresh from the store (the callable runs in
another thread, so it takes plain values and never touches ``st.session_state``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import streamlit as st

from agent_core.models.pricing import PriceTable
from agent_core.store import SessionInfo, SessionStore
from agent_core.trace_export import (
    EXTENSIONS,
    FORMATS,
    ExportFormat,
    OtelExportError,
    OtelUnavailable,
    export_trace,
    otlp_endpoint,
    send_otlp,
)
from sparrow_ui.translations.i18n import lang, t
from sparrow_ui.translations.strings_demo import td

MIME_TYPES: dict[ExportFormat, str] = {
    "jsonl": "application/x-ndjson",
    "otel": "application/json",
    "md": "text/markdown",
    "html": "text/html",
}
CONTENT_KEY = "export_content"


def trace_file_name(info: SessionInfo, fmt: ExportFormat) -> str:
    """``<title>-<id>.jsonl`` / ``.otlp.json`` / ``.md``."""
    slug = re.sub(r"[^\w\-]+", "-", info.title).strip("-")[:40].strip("-") or "session"
    return f"{slug}-{info.id}{EXTENSIONS[fmt]}"


def exporter(
    store: SessionStore,
    info: SessionInfo,
    fmt: ExportFormat,
    prices: PriceTable,
    *,
    content: bool = False,
    language: str = "en",
) -> Callable[[], str]:
    """A function that reads the session's events and returns them in ``fmt`` (called only on download)."""
    session_id, title = info.id, info.title

    def export() -> str:
        """The file's text, from the events stored now."""
        events, starters = store.log.events(session_id), store.log.run_starters(session_id)
        options: dict[str, object] = {
            "jsonl": {},
            "otel": {"session_id": session_id, "prices": prices, "include_content": content, "indent": 2},
            "md": {"title": title, "prices": prices},
            "html": {"title": title, "prices": prices, "lang": "zh" if language == "zh" else "en"},
        }[fmt]
        return export_trace(events, fmt, starters=starters, **options)

    return export


def export_menu(store: SessionStore, info: SessionInfo, prices: PriceTable) -> None:
    """Download buttons for the three formats and, when an OTLP endpoint is configured, a button to send there."""
    report_button(store, info, prices)
    content = st.checkbox(t("traces.export.content"), key=CONTENT_KEY, help=t("traces.export.content_help"))
    downloads: list[ExportFormat] = [f for f in FORMATS if f != "html"]
    for fmt in downloads:
        st.download_button(
            t(f"traces.export.{fmt}"),
            data=exporter(store, info, fmt, prices, content=content),
            file_name=trace_file_name(info, fmt),
            mime=MIME_TYPES[fmt],
            icon=":material/download:",
            key=f"export_{fmt}",
            on_click="ignore",
            width="stretch",
        )
    endpoint = otlp_endpoint()
    if endpoint is None:
        st.caption(t("traces.export.no_endpoint"))
        return
    if st.button(t("traces.export.send"), icon=":material/send:", key="export_send", width="stretch"):
        send(store, info, endpoint, prices, content=content)
    st.caption(t("traces.export.endpoint", url=endpoint))


def report_button(store: SessionStore, info: SessionInfo, prices: PriceTable, *, key: str = "export_html") -> None:
    """ "Download report": the self-contained HTML report, in the UI language."""
    st.download_button(
        td("report.download"),
        data=exporter(store, info, "html", prices, language=lang()),
        file_name=trace_file_name(info, "html"),
        mime=MIME_TYPES["html"],
        icon=":material/description:",
        key=key,
        help=td("report.help"),
        on_click="ignore",
        type="primary",
        width="stretch",
    )


def send(store: SessionStore, info: SessionInfo, endpoint: str, prices: PriceTable, *, content: bool) -> None:
    """Send the session's spans to the OTLP endpoint and say how it went."""
    try:
        with st.spinner(t("traces.export.sending", url=endpoint)):
            count = send_otlp(
                store.log.events(info.id),
                endpoint=endpoint,
                session_id=info.id,
                prices=prices,
                include_content=content,
                starters=store.log.run_starters(info.id),
            )
    except (OtelUnavailable, OtelExportError) as exc:
        st.error(t("traces.export.send_failed", error=str(exc)), icon=":material/error:")
    except Exception as exc:  # a bad URL, a refused connection...: say so rather than show a traceback
        st.error(t("traces.export.send_failed", error=f"{type(exc).__name__}: {exc}"), icon=":material/error:")
    else:
        st.success(t("traces.export.sent", count=count, url=endpoint), icon=":material/check_circle:")
