"""The time waterfall of a run as inline SVG: one bar per model or tool call against time, no script."""

from __future__ import annotations

from html import escape

from agent_core.formatting import format_duration
from agent_core.guards.masking import mask_secrets
from agent_core.views.timeline import Timeline, TimelineRow

WIDTH = 760
LABEL_WIDTH = 210
ROW_HEIGHT = 22
AXIS_HEIGHT = 22
COLOURS = {"model": "#4c78a8", "tool": "#54a24b", "error": "#e45756"}


def waterfall_svg(timeline: Timeline, labels: dict[str, str]) -> str:
    """The waterfall of ``timeline`` (labels: ``model_call``, ``tool_call``); empty when it has no calls."""
    if not timeline.rows:
        return ""
    span = max(timeline.span_ms, max(r.end_ms for r in timeline.rows), 1e-3)
    scale = (WIDTH - LABEL_WIDTH - 10) / span
    height = AXIS_HEIGHT + ROW_HEIGHT * len(timeline.rows)
    bars = "".join(_bar(i, row, scale, labels) for i, row in enumerate(timeline.rows))
    title = escape(f"{len(timeline.rows)} calls over {format_duration(span)}")
    return (
        f'<svg class="waterfall" role="img" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{title}</title>{_axis(span, scale, height)}{bars}</svg>'
    )


def _bar(index: int, row: TimelineRow, scale: float, labels: dict[str, str]) -> str:
    y = AXIS_HEIGHT + index * ROW_HEIGHT
    x = LABEL_WIDTH + row.start_ms * scale
    width = max(2.0, (row.end_ms - row.start_ms) * scale)
    colour = COLOURS["error"] if row.error else COLOURS[row.kind]
    kind = labels["model_call" if row.kind == "model" else "tool_call"]
    tip = f"{row.label} · {kind} · {format_duration(row.duration_ms)}"
    if row.error_text:
        tip += f" · {row.error_text}"
    label = f"#{row.step} {row.label}"
    label = label if len(label) <= 30 else label[:29] + "…"
    return (
        f'<text x="4" y="{y + 15}" class="lane">{_text(label)}</text>'
        f'<rect x="{x:.1f}" y="{y + 4}" width="{width:.1f}" height="{ROW_HEIGHT - 8}" rx="2" fill="{colour}">'
        f"<title>{_text(tip)}</title></rect>"
    )


def _text(text: str) -> str:
    """Untrusted text (a tool name, an error) made safe inside SVG: secrets masked, markup escaped."""
    return escape(mask_secrets(text))


def _axis(span: float, scale: float, height: int) -> str:
    ticks = []
    for i in range(5):
        at = span * i / 4
        x = LABEL_WIDTH + at * scale
        anchor = "end" if i == 4 else "start"
        ticks.append(
            f'<line x1="{x:.1f}" y1="{AXIS_HEIGHT - 4}" x2="{x:.1f}" y2="{height}" class="grid"/>'
            f'<text x="{x:.1f}" y="14" class="tick" text-anchor="{anchor}">{escape(format_duration(at))}</text>'
        )
    return "".join(ticks)
