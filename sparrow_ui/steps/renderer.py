"""Draw turns and steps. One set of functions for live runs, reloaded sessions and replays.

Every model or tool text goes through ``st.markdown`` with HTML disabled (Streamlit's default), or
``st.code`` / ``st.text``, which show it literally. Markdown images are turned into links so a reply
cannot make the browser fetch anything.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from agent_core.engine.protocols.json_reply import partial_answer
from agent_core.engine.state import CallState, RunState, StepState
from agent_core.events import Usage
from agent_core.formatting import clip, format_cost, format_duration, format_tokens, format_usage
from agent_core.guards.untrusted import neutralize, plain
from agent_core.models.pricing import PriceTable
from agent_core.views.metrics import RunMetrics, SessionMetrics, ToolStats
from sparrow_ui.chat import chat_attachments
from sparrow_ui.elements.literal import literal
from sparrow_ui.steps.step_status import (
    failing,
    format_retry_number,
    raw_arguments,
    repeated_from,
    step_chips,
    step_icon,
    stopped_here,
)
from sparrow_ui.translations.i18n import status_label, t
from sparrow_ui.translations.strings_demo import td

_FINAL = re.compile(r"(?:final[ _]*answer|最终答案)[ \t*_]*[:：]", re.IGNORECASE)
LONG_OBSERVATION = 600
"""Observations longer than this are shown in a short scrolling box."""


def safe_markdown(text: str) -> str:
    """Markdown that cannot make the browser fetch anything (see ``agent_core.guards.untrusted.neutralize``)."""
    return neutralize(text)


def tool_summary(tools: Sequence[ToolStats]) -> str:
    """``3 tool calls: calculator ×2, date_calculator ×1 · 1 error · 1.2 s in tools``, in the UI language."""
    calls = sum(s.calls for s in tools)
    if not calls:
        return t("summary.no_tools")
    names = ", ".join(f"{s.tool} ×{s.calls}" for s in tools)
    parts = [t("summary.call" if calls == 1 else "summary.calls", count=calls, tools=names)]
    errors = sum(s.errors for s in tools)
    if errors:
        parts.append(t("summary.error" if errors == 1 else "summary.errors", count=errors))
    parts.append(t("summary.in_tools", time=format_duration(sum(s.total_ms for s in tools))))
    return " · ".join(parts)


def metrics_line(metrics: RunMetrics | SessionMetrics) -> str:
    """Steps · tokens · cost · time, for under an answer or in the sidebar."""
    usage = metrics.usage
    counted = usage.total_tokens > 0  # nothing counted yet (a first reply still streaming): unknown, not zero
    parts = [
        t("metrics.steps" if metrics.steps != 1 else "metrics.step", n=metrics.steps),
        t("metrics.tokens", tokens=format_tokens(usage.total_tokens if counted else None, estimated=usage.estimated)),
        format_cost(metrics.cost if counted else None, estimated=usage.estimated),
        format_duration(metrics.duration_ms),
    ]
    return " · ".join(parts)


def user_message(question: str, attachments: Sequence[dict[str, str]] = ()) -> None:
    """The user's question as a chat bubble, with thumbnails of what was attached."""
    with st.chat_message("user"):
        st.markdown(literal(question))
        chat_attachments.thumbnails(attachments)


def answer_body(turn: RunState) -> None:
    """The assistant bubble's content: the answer, the streaming text, or why there is none."""
    if turn.answer is not None:
        st.markdown(safe_markdown(turn.answer))
    elif not turn.finished:
        text = visible_answer(turn.live_text, turn.protocol)
        st.markdown(safe_markdown(text) + " ▌" if text else f"*{t('chat.thinking')}*")
    else:
        said = t("chat.no_answer", status=status_label(turn.status))
        if turn.status == "cancelled":
            st.info(said, icon=":material/stop_circle:")
        else:
            st.warning(said + (f"\n\n{literal(turn.error)}" if turn.error else ""))


def visible_answer(streamed: str, protocol: str) -> str:
    """What of a streaming reply belongs in the chat: for ReAct, only what follows ``Final Answer:`` (JSON: its
    ``final_answer`` so far).

    Thoughts and actions stream into the trace panel instead.
    """
    if protocol == "json":
        return partial_answer(streamed)
    if protocol != "react":
        return streamed
    match = _FINAL.search(streamed)
    return streamed[match.end() :].strip() if match else ""


def turn_caption(turn: RunState, metrics: RunMetrics | None) -> str:
    """Status and metrics of a finished turn, for under its answer."""
    status = status_label(turn.status)
    icons = {"completed": ":material/check_circle:", "cancelled": ":material/stop_circle:"}
    icon = icons.get(turn.status or "", ":material/warning:")
    return f"{icon} {status} · {literal(metrics_line(metrics))}" if metrics else f"{icon} {status}"


def trace_header(turn: RunState, number: int, metrics: RunMetrics | None, *, replay: bool = False) -> None:
    """Which turn the trace shows, and its tool usage summary (``replay``: a frame of a recording)."""
    status = td("trace.replay_status") if replay and not turn.finished else status_label(turn.status)
    st.markdown(f"**{t('trace.turn', n=number)}** · {status}")
    st.caption(literal(clip(turn.question, 160)))
    if metrics is not None:
        st.caption(f":material/build: {tool_summary(metrics.tools)}")
        st.caption(f":material/speed: {literal(metrics_line(metrics))}")


def steps(
    turn: RunState,
    prices: PriceTable,
    *,
    live: bool = False,
    replay: bool = False,
    controls: Callable[[StepState], None] | None = None,
) -> None:
    """Every step of a turn as an expandable item whose icon and chips say its state (running, ok, error, stopped).

    The running step and failing steps open by themselves; a run that ended without an answer ends with a
    marker saying why. ``replay``: a frame of a recording (its last step is shown as it was then): only that
    step, the one the frame is about, is open. ``controls`` draws a finished step's own buttons at its end
    (what-if: edit and continue, re-sample).
    """
    last = len(turn.steps) - 1
    for index, step in enumerate(turn.steps):
        if step.number in turn.resumed_at:
            st.caption(f":material/replay: {t('trace.resumed')}")
        waiting = any(a.approval == "pending" for a in step.actions)
        chips = " ".join(c.markdown() for c in step_chips(turn, index, live=live, replay=replay))
        label = _step_label(step, prices) + " " + chips
        opened = index == last if replay else (live and index == last) or waiting or failing(turn, index)
        with st.expander(label, expanded=opened, icon=step_icon(turn, index, live=live)):
            _offered(step, turn)
            step_body(step, turn, index, replay=replay)
            if controls is not None and not replay and not (live and not turn.finished and index == last):
                controls(step)
    run_end_marker(turn)


def run_end_marker(turn: RunState) -> None:
    """After the last step of a run that ended without an answer: why it ended there."""
    if turn.status == "max_steps":
        st.error(t("trace.end.max_steps", n=len(turn.steps)), icon=":material/block:")
    elif turn.status == "cancelled":
        st.info(t("trace.end.cancelled"), icon=":material/stop_circle:")
    elif turn.status == "timeout":
        st.error(t("trace.end.timeout"), icon=":material/timer_off:")
    elif turn.status == "format_error":
        unusable = format_retry_number(turn, len(turn.steps) - 1) if turn.steps else 0
        st.error(td("trace.end.format_error", n=unusable), icon=":material/block:")


def _offered(step: StepState, turn: RunState) -> None:
    """Which tools the model was shown, when tool retrieval offered only some of them."""
    if step.offered_tools and len(step.offered_tools) < turn.tool_count:
        st.caption(t("trace.offered", tools=", ".join(step.offered_tools)))


def _step_label(step: StepState, prices: PriceTable) -> str:
    what = ", ".join(literal(a.tool) for a in step.actions) or (
        t("trace.answer") if step.final_answer is not None else ""
    )
    numbers = literal(step_numbers(step, prices))  # ``~`` and ``$`` are markdown in a label
    return " · ".join(x for x in (t("trace.step", n=step.number), what, numbers) if x)


def step_numbers(step: StepState, prices: PriceTable) -> str:
    """Latency and tokens of a step's latest model call, and the cost of its calls (at the run's endpoint)."""
    call = step.call
    if call is None:
        return ""
    if call.error and not call.usage.total_tokens:
        return format_duration(call.latency_ms)
    cost = step.cost(prices)
    priced = [format_cost(cost, estimated=call.usage.estimated)] if cost is not None else []
    return " · ".join([format_duration(call.latency_ms), usage_text(call.usage), *priced])


def usage_text(usage: Usage) -> str:
    """Tokens in and out, with the cached and reasoning ones the provider counted, in the app's language."""
    return format_usage(usage, unit=t("unit.tokens"), cached=t("unit.cached"), reasoning=t("unit.reasoning"))


def step_body(step: StepState, turn: RunState | None = None, index: int = 0, *, replay: bool = False) -> None:
    """Thought, action(s) with arguments, observation(s), errors (each once); or the streaming text.

    ``replay``: a frame of a recording, where a call without its result yet gets it in the next frame.
    """
    if step.reasoning:
        st.markdown(f"**{t('trace.reasoning')}**")
        st.text(clip(step.reasoning, 4000))
    if step.thinking:
        st.text(step.streamed or "…")
        return
    if step.model_error and turn is not None and stopped_here(turn, index):
        st.info(t("trace.stopped"), icon=":material/stop_circle:")
    elif step.model_error:
        st.error(t("trace.model_error", error=literal(step.model_error)))
    if step.thought:
        st.markdown(f":blue[:material/lightbulb: **{t('trace.thought')}**]")
        st.text(step.thought)
    if step.format_error:
        st.error(t("trace.format_error", error=literal(step.format_error)))
        st.code(step.text or "", language=None, wrap_lines=True)
    if turn is not None and (earlier := repeated_from(turn, index)) is not None:
        st.warning(t("trace.repeated", n=earlier), icon=":material/repeat:")
    for action in step.actions:
        action_block(action, raw_arguments(step, action), replay=replay)
    for flag in step.flags:
        found = ", ".join(f"{f.get('label', f.get('kind'))} ({f.get('masked')})" for f in flag.findings)
        st.warning(
            t("trace.flagged", source=t(f"trace.source.{flag.source}"), found=literal(found)), icon=":material/shield:"
        )
    if step.final_answer is not None:
        st.markdown(f":green[:material/check_circle: **{t('trace.answer')}**]")
        st.text(step.final_answer)
    if step.call is not None and step.call.ttft_ms is not None:
        st.caption(t("trace.ttft", time=format_duration(step.call.ttft_ms)))


def action_block(action: CallState, raw: str | None = None, *, replay: bool = False) -> None:
    """One tool call: name, arguments (the raw text when the model's were not JSON), and its observation or error.

    A failed call shows its error once: the observation is left out when it only repeats the error.
    """
    badge = f" · {t(f'approval.{action.approval}')}" if action.approval else ""
    st.markdown(f":orange[:material/build: **{t('trace.action')}**] `{literal(action.tool)}`{badge}")
    if raw is not None:
        st.caption(t("trace.raw_arguments"))
        st.code(raw, language=None, wrap_lines=True)
    else:
        st.code(json.dumps(action.arguments, ensure_ascii=False, indent=2), language="json", wrap_lines=True)
    if action.approval == "pending":
        return
    if action.running:
        st.caption(f"⏳ {td('trace.result_next') if replay else t('trace.running')}")
        return
    output = action.output or ""
    if action.error:
        st.error(t("trace.tool_error", error=literal(action.error)) + f" · {format_duration(action.duration_ms)}")
        if not output.strip() or action.error.strip() in output:
            return
    observation = f":green[:material/visibility: **{t('trace.observation')}**] · {format_duration(action.duration_ms)}"
    st.markdown(observation + (f" {t('trace.truncated')}" if action.truncated else ""))
    if action.finished is not None and action.finished.outside:
        st.caption(f":material/travel_explore: {t('taint.outside', source=literal(action.finished.outside))}")
    height: Any = 160 if len(output) > LONG_OBSERVATION else "content"
    st.code(output, language=None, wrap_lines=True, height=height)
    _links(action.details)


def approval_box(tool: str, arguments: dict[str, Any], key: str, on_decide: Any, *, reason: str | None = None) -> None:
    """Approve / Deny for a call the run is waiting on; ``on_decide(approved)`` records the decision."""
    with st.container(border=True):
        st.markdown(f":material/front_hand: **{t('approval.title', tool=tool)}**")
        if reason:
            st.warning(t("taint.reason", reason=literal(reason)), icon=":material/travel_explore:")
        st.code(json.dumps(arguments, ensure_ascii=False, indent=2), language="json")
        yes, no = st.columns(2)
        yes.button(
            t("approval.approve"),
            key=f"approve_{key}",
            type="primary",
            on_click=on_decide,
            args=(True,),
            icon=":material/check:",
            width="stretch",
        )
        no.button(
            t("approval.deny"),
            key=f"deny_{key}",
            on_click=on_decide,
            args=(False,),
            icon=":material/block:",
            width="stretch",
        )


def _links(details: Any) -> None:
    """Clickable links for tool details that carry search results (title/url)."""
    items = details.get("results") if isinstance(details, dict) else details
    if not isinstance(items, list):
        return
    lines = [
        f"- [{plain(clip(str(item.get('title') or item['url']), 90))}]({neutralize(item['url'])})"
        for item in items[:10]
        if isinstance(item, dict) and str(item.get("url", "")).startswith(("http://", "https://"))
    ]
    if lines:
        st.markdown(safe_markdown("\n".join(lines)))  # titles come from tools (web pages, MCP servers)
