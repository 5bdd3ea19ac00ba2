"""A self-contained HTML report of a session: one file that opens offline in any browser and can be mailed, in English
or Chinese (``--lang en|zh``). Built on the one fold of events (``Transcript``), the metrics and the timeline, like
every other view: the conversation, then per turn its metrics, tool summary, time waterfall (inline SVG, one bar per
model or tool call), every step as an expandable ``<details>`` (thought, action, arguments, observation, errors,
tokens, latency, cost) and the model, protocol and settings used. It loads nothing: no script at all, inline styles
only, and a Content-Security-Policy that forbids any request. Every text from the log is untrusted (model replies,
tool outputs, questions, names): secrets are masked (``masking.mask_secrets``) and it is escaped
(``safe_text``). The experiment report (``experiments.report``) is built in the same page.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from html import escape
from typing import Any

from agent_core.events import Event, Usage
from agent_core.formatting import clip, format_cost, format_duration, format_tokens, format_usage
from agent_core.guards.masking import mask_secrets
from agent_core.models.pricing import DEFAULT_TABLE, PriceTable
from agent_core.views import LANGS, ReportLang
from agent_core.views.metrics import RunMetrics, SessionMetrics, ToolStats, runs_metrics
from agent_core.views.timeline import Timeline, TimelineRow, turn_timeline
from agent_core.views.transcript import Transcript
from agent_core.views.turns import ActionView, StepView, TurnView

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
"""Nothing may be fetched: no script, no font, no image but inline data, no connection."""
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
STYLE = """
:root{--fg:#1f2328;--mute:#656d76;--line:#d0d7de;--soft:#f6f8fa;--err:#cf222e;--ok:#1a7f37;--acc:#0969da}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI","Noto Sans","PingFang SC","Microsoft YaHei",sans-serif;
color:var(--fg);max-width:980px;margin:2rem auto;padding:0 1rem}
h1{font-size:1.6rem;margin:.2rem 0}h2{font-size:1.3rem;margin:2rem 0 .5rem;border-bottom:1px solid var(--line)}
h3{font-size:1rem;margin:1.2rem 0 .4rem}.mute{color:var(--mute);font-size:.9rem}
table{border-collapse:collapse;margin:.3rem 0}td,th{border:1px solid var(--line);padding:.2rem .6rem;text-align:left}
th{background:var(--soft)}td.n{text-align:right;font-variant-numeric:tabular-nums}
pre{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:.5rem .7rem;white-space:pre-wrap;
overflow-wrap:anywhere;margin:.2rem 0 .6rem;font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.bubble{white-space:pre-wrap;overflow-wrap:anywhere;border-radius:8px;padding:.5rem .8rem;margin:.3rem 0}
.q{background:#ddf4ff}.a{background:var(--soft);border:1px solid var(--line)}
details{border:1px solid var(--line);border-radius:6px;margin:.4rem 0;padding:0 .7rem}
details[open]{padding-bottom:.5rem}summary{cursor:pointer;padding:.4rem 0;font-weight:600}
.err{color:var(--err)}.okc{color:var(--ok)}.badge{font-size:.8rem;border-radius:9px;padding:0 .45rem;
border:1px solid currentColor;margin-left:.4rem;font-weight:500}.label{font-weight:600;margin-top:.4rem}
svg .lane,svg .tick{font:11px system-ui,sans-serif;fill:var(--mute)}svg .grid{stroke:var(--line)}
@media print{body{margin:0;max-width:none;font-size:11pt}details::details-content{content-visibility:visible;
display:block}details{break-inside:avoid}summary{list-style:none}a{color:inherit;text-decoration:none}}
"""


def to_html(
    events: Iterable[Event],
    *,
    title: str = "Sparrow session",
    prices: PriceTable = DEFAULT_TABLE,
    lang: ReportLang = "en",
    starters: Mapping[str, str] | None = None,
) -> str:
    """The whole report as one HTML document (UTF-8 text); ``starters`` (run id → who) names each run's starter."""
    w = words(lang)
    transcript = Transcript.from_events(events)
    runs = transcript.runs
    session = runs_metrics(runs, prices=prices)
    parts = [
        f"<h1>{safe_text(title)}</h1>",
        f'<p class="mute">{safe_text(w["generated"].format(turns=len(runs), events=transcript.events_seen))} · '
        f"{safe_text(w['offline'])} {safe_text(w['masked'])}</p>",
    ]
    if not runs:
        parts.append(f"<p>{safe_text(w['no_runs'])}</p>")
    else:
        parts.append(_conversation(runs, w))
        parts += [_session_totals(session, w)] if len(runs) > 1 else []
        who = starters or {}
        parts += [
            _turn(n, run, m, w, who.get(run.run_id))
            for n, (run, m) in enumerate(zip(runs, session.runs, strict=True), start=1)
        ]
    return page(title, lang, "\n".join(parts))


def page(title: str, lang: str, body: str, *, extra_style: str = "") -> str:
    """A self-contained HTML document around ``body``: the report's style (and ``extra_style``), nothing fetched."""
    return (
        f'<!DOCTYPE html>\n<html lang="{"zh-CN" if lang == "zh" else "en"}">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="referrer" content="no-referrer">\n<title>{safe_text(title)}</title>\n'
        f"<style>{STYLE}{extra_style}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def safe_text(value: Any) -> str:
    """Untrusted text made safe for HTML: secrets masked, then every markup character escaped."""
    return escape(mask_secrets(str(value)), quote=True)


def _rich(value: str) -> str:
    """Like ``safe_text``, and ``**bold**`` shown bold (applied after escaping, so it cannot make markup)."""
    return _BOLD.sub(r"<strong>\1</strong>", safe_text(value))


def _conversation(runs: list[TurnView], w: dict[str, str]) -> str:
    items = [f"<h2>{safe_text(w['conversation'])}</h2>"]
    for number, run in enumerate(runs, start=1):
        items.append(f'<p class="label"><a href="#turn-{number}">{safe_text(w["turn"].format(n=number))}</a></p>')
        items.append(f'<div class="bubble q">{safe_text(run.question)}</div>')
        items.append(_answer(run, w))
    return "\n".join(items)


def _answer(run: TurnView, w: dict[str, str]) -> str:
    if run.answer is not None:
        return f'<div class="bubble a" data-answer>{_rich(run.answer)}</div>'
    status = run.status or w["unfinished"]
    reason = f": {run.error}" if run.error else ""
    return f'<div class="bubble a err">{safe_text(w["no_answer"].format(status=status) + reason)}</div>'


def _cells(rows: list[tuple[str, str, str]]) -> str:
    """A two-column table of (key for tests, label, value)."""
    body = "".join(
        f'<tr><th>{safe_text(label)}</th><td data-metric="{key}">{safe_text(value)}</td></tr>'
        for key, label, value in rows
    )
    return f'<table class="kv">{body}</table>'


def _figures(m: RunMetrics | SessionMetrics, w: dict[str, str]) -> list[tuple[str, str, str]]:
    u = m.usage
    tokens = _tokens(u, w)
    return [
        ("steps", w["steps"], str(m.steps)),
        ("tool_calls", w["tool_calls"], f"{m.tool_calls} ({m.tool_errors} ✗)" if m.tool_errors else str(m.tool_calls)),
        ("tokens", w["tokens"], tokens),
        ("cost", w["cost"], format_cost(m.cost, estimated=u.estimated)),
        ("duration", w["duration"], format_duration(m.duration_ms)),
        ("model_time", w["model_time"], format_duration(m.model_ms)),
        ("tool_time", w["tool_time"], format_duration(m.tool_ms)),
        ("ttft", w["ttft"], format_duration(m.ttft_ms)),
        ("format_errors", w["format_errors"], str(m.format_errors)),
    ]


def _tokens(usage: Usage, w: dict[str, str]) -> str:
    """Prompt → completion tokens, written as the Traces page writes them (the one token formatter)."""
    return format_usage(usage, unit=w["unit_tokens"], cached=w["unit_cached"], reasoning=w["unit_reasoning"])


def _session_totals(session: SessionMetrics, w: dict[str, str]) -> str:
    return f"<h2>{safe_text(w['session'])}</h2><div data-session>{_cells(_figures(session, w))}</div>"


def _turn(number: int, run: TurnView, m: RunMetrics, w: dict[str, str], started_by: str | None) -> str:
    heading = (
        w["turn"].format(n=number) + ": " + (clip(run.question, 80, one_line=True) if run.question else run.run_id)
    )
    status = m.status or w["unfinished"]
    by = w["started_by"].format(who=started_by) if started_by else None
    steps = [_step(step, m.prices, w) for step in run.numbered_steps]
    return "\n".join(
        [
            f'<section class="turn" id="turn-{number}" data-run="{safe_text(run.run_id)}">',
            f"<h2>{safe_text(heading)}</h2>",
            f'<div class="bubble q">{safe_text(run.question)}</div>',
            f'<p class="mute">{safe_text(" · ".join(x for x in (m.model, run.protocol, status, by) if x))}</p>',
            f"<h3>{safe_text(w['metrics'])}</h3>",
            _cells([("status", w["status"], status), *_figures(m, w)]),
            _tool_table(m.tools, w),
            f"<h3>{safe_text(w['waterfall'])}</h3>",
            waterfall_svg(turn_timeline(run), w),
            f"<h3>{safe_text(w['steps'])}</h3>",
            *steps,
            f"<h3>{safe_text(w['answer'])}</h3>",
            _answer(run, w),
            _setup(run, w),
            "</section>",
        ]
    )


def _tool_table(tools: tuple[ToolStats, ...], w: dict[str, str]) -> str:
    if not tools:
        return ""
    head = "".join(f"<th>{safe_text(w[k])}</th>" for k in ("tool", "calls", "ok", "errors", "mean", "max"))
    rows = "".join(
        f"<tr><td>{safe_text(t.tool)}</td><td class=n>{t.calls}</td><td class=n>{t.ok}</td><td class=n>{t.errors}</td>"
        f"<td class=n>{format_duration(t.mean_ms)}</td><td class=n>{format_duration(t.max_ms)}</td></tr>"
        for t in tools
    )
    return f'<h3>{safe_text(w["tool_summary"])}</h3><table class="tools"><tr>{head}</tr>{rows}</table>'


def _step(step: StepView, prices: PriceTable, w: dict[str, str]) -> str:
    body = [_field(w["reasoning"], step.reasoning), _field(w["thought"], step.thought)]
    if not step.model_calls:
        body.append(f"<p class=mute>{safe_text(w['no_reply'])}</p>")
    if step.model_error:
        body.append(_field(w["model_error"], step.model_error, error=True))
    if step.format_error:
        body.append(_field(w["format_error"], step.format_error, error=True))
        body.append(_field(w["raw"], step.text or "") if (step.text or "").strip() != step.thought.strip() else "")
    body += [_call(call, w) for call in step.tool_calls]
    if (asked := step.answer_requested) is not None:
        text = w["answer_requested"].format(n=asked.repeats, how=asked.narrowing)
        body.append(f"<p class=mute data-answer-requested>{safe_text(text)}</p>")
    if step.final_answer is not None:
        final = f'<div class="bubble a">{_rich(step.final_answer)}</div>'
        body.append(f'<p class="label">{safe_text(w["final"])}</p>{final}')
    body.append(f'<p class="mute" data-step-metrics>{safe_text(_step_figures(step, prices, w))}</p>')
    return (
        f'<details class="step" data-step="{step.number}"><summary>{_step_summary(step, w)}</summary>'
        f"{''.join(body)}</details>"
    )


def _step_summary(step: StepView, w: dict[str, str]) -> str:
    what = ", ".join(a.tool for a in step.tool_calls) or (w["final"] if step.final_answer is not None else "")
    usage = step.usage
    parts = [w["step"].format(n=step.number), what]
    parts += [format_tokens(usage.total_tokens, estimated=usage.estimated), format_duration(step.latency_ms)]
    badge = f'<span class="badge err">{safe_text(w["errors"])}</span>' if step.has_error else ""
    return safe_text(" · ".join(p for p in parts if p)) + badge


def _step_figures(step: StepView, prices: PriceTable, w: dict[str, str]) -> str:
    u, cost = step.usage, format_cost(step.cost(prices), estimated=step.usage.estimated)
    return (
        f"{w['tokens']}: {_tokens(u, w)} · {w['latency']}: {format_duration(step.latency_ms)} · "
        f"{w['ttft']}: {format_duration(step.ttft_ms)} · {w['cost']}: {cost}"
    )


def _call(call: ActionView, w: dict[str, str]) -> str:
    arguments = json.dumps(call.arguments, ensure_ascii=False, indent=2) if call.arguments else "{}"
    parts = [
        f'<p class="label">{safe_text(w["action"])}: <code>{safe_text(call.tool)}</code></p>',
        _field(w["arguments"], arguments),
    ]
    if call.repeated is not None:
        said = w["repeat_ran" if call.repeated.ran else "repeat"].format(n=call.repeated.first_step)
        parts.append(f"<p class=mute data-repeat>{safe_text(said)}</p>")
    if call.finished is None:
        parts.append(f"<p class=mute>{safe_text(w['not_finished'])}</p>")
        return "".join(parts)
    took = f" ({format_duration(call.duration_ms)})"
    if call.error:
        parts.append(_field(w["tool_error"] + took, call.error, error=True))
    parts.append(_field(w["observation"] + took, call.output or ""))
    return "".join(parts)


def _field(label: str, text: str, *, error: bool = False) -> str:
    if not text:
        return ""
    css = ' class="label err"' if error else ' class="label"'
    return f"<p{css}>{safe_text(label)}</p><pre>{safe_text(text)}</pre>"


def _setup(run: TurnView, w: dict[str, str]) -> str:
    started = run.run_started
    rows = [("model", w["model"], run.model or "?"), ("protocol", w["protocol"], run.protocol or "?")]
    if started is not None:
        names = [t.get("function", {}).get("name", "?") if isinstance(t, dict) else str(t) for t in started.tools]
        rows.append(("tools", w["tools_offered"], ", ".join(names)))
        rows += [
            (f"setting-{k}", str(k), json.dumps(v, ensure_ascii=False)) for k, v in sorted(started.settings.items())
        ]
    return f'<details class="setup"><summary>{safe_text(w["setup"])}</summary>{_cells(rows)}</details>'


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
        f'<text x="4" y="{y + 15}" class="lane">{safe_text(label)}</text>'
        f'<rect x="{x:.1f}" y="{y + 4}" width="{width:.1f}" height="{ROW_HEIGHT - 8}" rx="2" fill="{colour}">'
        f"<title>{safe_text(tip)}</title></rect>"
    )


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


_WORDS: dict[str, tuple[str, str]] = {
    "generated": (
        "Sparrow trace report · {turns} turns · {events} events",
        "Sparrow 追踪报告 · {turns} 轮 · {events} 个事件",
    ),
    "offline": (
        "This file is self-contained: it loads nothing from the network. Click a step to expand it.",
        "此文件完全独立：不会从网络加载任何内容。点击步骤即可展开。",
    ),
    "conversation": ("Conversation", "对话"),
    "session": ("Session totals", "会话合计"),
    "turn": ("Turn {n}", "第 {n} 轮"),
    "question": ("Question", "问题"),
    "answer": ("Answer", "回答"),
    "no_answer": ("No answer ({status})", "没有回答（{status}）"),
    "unfinished": ("unfinished", "未完成"),
    "setup": ("Model, protocol and settings", "模型、协议与设置"),
    "model": ("Model", "模型"),
    "started_by": ("started by {who}", "发起人：{who}"),
    "protocol": ("Protocol", "协议"),
    "tools_offered": ("Tools", "工具"),
    "metrics": ("Metrics", "指标"),
    "status": ("Status", "状态"),
    "steps": ("Steps", "步数"),
    "tool_calls": ("Tool calls", "工具调用"),
    "tokens": ("Tokens (prompt → completion)", "Token（提示 → 生成）"),
    "unit_tokens": ("tokens", "token"),
    "unit_cached": ("cached", "缓存"),
    "unit_reasoning": ("reasoning", "推理"),
    "cost": ("Cost", "费用"),
    "duration": ("Duration", "耗时"),
    "model_time": ("Model time", "模型耗时"),
    "tool_time": ("Time in tools", "工具耗时"),
    "ttft": ("Time to first token", "首个 token 时间"),
    "format_errors": ("Format retries", "格式重试"),
    "errors": ("Errors", "错误"),
    "tool_summary": ("Tool summary", "工具汇总"),
    "tool": ("Tool", "工具"),
    "calls": ("Calls", "调用"),
    "ok": ("OK", "成功"),
    "mean": ("Mean", "平均"),
    "max": ("Max", "最长"),
    "waterfall": ("Time waterfall", "时间瀑布图"),
    "model_call": ("model call", "模型调用"),
    "tool_call": ("tool call", "工具调用"),
    "step": ("Step {n}", "第 {n} 步"),
    "thought": ("Thought", "思考"),
    "reasoning": ("Reasoning", "推理"),
    "action": ("Action", "行动"),
    "arguments": ("Arguments", "参数"),
    "observation": ("Observation", "观察"),
    "final": ("Final answer", "最终回答"),
    "format_error": ("Format error (the model was asked to retry)", "格式错误（已要求模型重试）"),
    "model_error": ("Model error", "模型错误"),
    "tool_error": ("Tool error", "工具错误"),
    "raw": ("What the model wrote", "模型的原始输出"),
    "latency": ("Latency", "延迟"),
    "no_reply": ("No model reply was recorded (the run was interrupted).", "没有记录到模型回复（运行被中断）。"),
    "not_finished": ("The call never finished (the run was interrupted).", "调用没有完成（运行被中断）。"),
    "no_runs": ("No runs recorded.", "没有记录任何运行。"),
    "masked": ("Secrets are masked.", "密钥已遮盖。"),
    "repeat": ("↺ Repeat of step {n}, not run again", "↺ 重复第 {n} 步的调用，未再次执行"),
    "repeat_ran": ("↺ Repeat of step {n}, run again", "↺ 重复第 {n} 步的调用，已再次执行"),
    "answer_requested": ("⇥ Answer requested after {n} repeats ({how})", "⇥ 重复 {n} 次后要求给出答案（{how}）"),
}


def in_lang(table: dict[str, tuple[str, str]], lang: ReportLang) -> dict[str, str]:
    """A table of (English, Chinese) pairs as the words of ``lang``."""
    index = LANGS.index(lang)
    return {key: pair[index] for key, pair in table.items()}


def words(lang: ReportLang) -> dict[str, str]:
    """Every word of the report in ``lang``."""
    return in_lang(_WORDS, lang)
