"""UI strings of the demo features (example sessions, report download, presentation mode); ``td(key)`` reads them."""

from __future__ import annotations

from sparrow_ui.translations.i18n import lang

STRINGS: dict[str, dict[str, str]] = {
    "examples.offer_title": {"en": "Or look around first", "zh": "或者先看看示例"},
    "examples.offer_body": {
        "en": "These example sessions were written to show Sparrow's views (chat, trace, Traces, Replay): "
        "scripted replies run through the real agent loop and tools, not a live model's output. "
        "They open with no model and no network.",
        "zh": "这些示例会话用来展示 Sparrow 的各个视图（对话、追踪、追踪页、回放）："
        "脚本化的回复经过真实的智能体循环和工具运行，并非真实模型的输出。无需模型、无需网络即可打开。",
    },
    "examples.open": {"en": "Open an example session: {title}", "zh": "打开示例会话：{title}"},
    "examples.banner": {
        "en": "**Example session** ({name}): written to show Sparrow's views. Its replies come from a script run "
        "through the real agent loop and tools, not from a live model.",
        "zh": "**示例会话**（{name}）：用来展示 Sparrow 的视图。其中的回复来自经真实智能体循环和工具运行的脚本，"
        "并非真实模型的输出。",
    },
    "examples.section": {"en": "Example sessions", "zh": "示例会话"},
    "examples.section_help": {
        "en": "Shipped with Sparrow to show its views; not your own sessions.",
        "zh": "随 Sparrow 附带，用于展示其视图；不是你自己的会话。",
    },
    "examples.present": {"en": "Present", "zh": "演示"},
    "report.download": {"en": "Download report (HTML)", "zh": "下载报告（HTML）"},
    "report.help": {
        "en": "One self-contained HTML file: opens offline in any browser, can be mailed.",
        "zh": "一个独立的 HTML 文件：可离线在任何浏览器中打开，可直接通过邮件发送。",
    },
    "present.enter": {"en": "Presentation mode", "zh": "演示模式"},
    "present.exit": {"en": "Exit presentation", "zh": "退出演示"},
    "present.keys": {
        "en": "→ or space: next step · ←: previous · Home / End: first / last",
        "zh": "→ 或空格：下一步 · ←：上一步 · Home / End：第一步 / 最后一步",
    },
    "present.no_session": {
        "en": "Open a session with at least one run to present it.",
        "zh": "请先打开一个至少有一次运行的会话再进行演示。",
    },
    "nav.compare": {"en": "Compare", "zh": "对比"},
    "compare.intro": {
        "en": "Two turns side by side, from any sessions: their steps aligned, the differing tool calls and "
        "arguments highlighted, and their figures.",
        "zh": "并排对比任意会话中的两轮：步骤对齐，高亮不同的工具调用和参数，并列出各项指标。",
    },
    "compare.left": {"en": "Left", "zh": "左侧"},
    "compare.right": {"en": "Right", "zh": "右侧"},
    "compare.session": {"en": "Session", "zh": "会话"},
    "compare.turn": {"en": "Turn", "zh": "轮次"},
    "compare.metrics": {"en": "Metrics", "zh": "指标"},
    "compare.steps": {"en": "Steps, aligned", "zh": "对齐的步骤"},
    "compare.differing": {"en": "{count} of {total} step pairs differ", "zh": "{total} 对步骤中有 {count} 对不同"},
    "compare.no_step": {"en": "(no such step)", "zh": "（没有对应的步骤）"},
    "compare.need_turns": {
        "en": "Compare needs at least one session with a run: ask a question or open an example first.",
        "zh": "对比至少需要一个有运行的会话：请先提问或打开一个示例。",
    },
    "compare.open": {"en": "Compare", "zh": "对比"},
    "compare.rerun": {"en": "Run again with…", "zh": "换个设置再运行…"},
    "compare.rerun_help": {
        "en": "Asks the left turn's question again in a fork of its session (the original stays as it is), "
        "with the model below, then compares the two.",
        "zh": "在该会话的分支中重新提出左侧这一轮的问题（原会话保持不变），使用下面的设置，然后进行对比。",
    },
    "compare.rerun_go": {"en": "Run again", "zh": "再次运行"},
    "compare.rerun_needs_model": {
        "en": "Connect a model in the sidebar to run again.",
        "zh": "请先在侧边栏连接模型，才能再次运行。",
    },
    "compare.col.metric": {"en": "metric", "zh": "指标"},
    "compare.col.left": {"en": "left", "zh": "左侧"},
    "compare.col.right": {"en": "right", "zh": "右侧"},
    "compare.metric.model": {"en": "model", "zh": "模型"},
    "compare.metric.protocol": {"en": "protocol", "zh": "协议"},
    "compare.metric.status": {"en": "status", "zh": "状态"},
    "compare.metric.steps": {"en": "steps", "zh": "步数"},
    "compare.metric.tool calls": {"en": "tool calls", "zh": "工具调用"},
    "compare.metric.tool errors": {"en": "tool errors", "zh": "工具错误"},
    "compare.metric.tokens": {"en": "tokens", "zh": "token"},
    "compare.metric.cost": {"en": "cost", "zh": "费用"},
    "compare.metric.duration": {"en": "duration", "zh": "耗时"},
    "compare.step": {"en": "Step {n}", "zh": "第 {n} 步"},
    "compare.calls": {"en": "{n} call(s)", "zh": "{n} 次调用"},
    "compare.answer": {"en": "answer", "zh": "回答"},
    "compare.protocol": {"en": "Protocol", "zh": "协议"},
    "compare.model": {"en": "Model", "zh": "模型"},
    "compare.temperature": {"en": "Temperature", "zh": "温度"},
    "chip.replaying": {"en": "at this point", "zh": "进行到此处"},
    "chip.interrupted": {"en": "interrupted", "zh": "已中断"},
    "chip.format_retry": {
        "en": "unusable reply · retry {n} of {max}",
        "zh": "回复格式错误 · 第 {n} 次重试（共 {max} 次）",
    },
    "chip.format_gave_up": {"en": "unusable reply · gave up after {n}", "zh": "回复格式错误 · {n} 次后放弃"},
    "trace.end.format_error": {
        "en": "The run stopped here: the model replied in an unusable format {n} times in a row.",
        "zh": "运行在此停止：模型连续 {n} 次以无法解析的格式回复。",
    },
    "time.start": {"en": "start (prompt, memory, storing)", "zh": "启动（提示词、记忆、存储）"},
    "time.between": {"en": "between calls (parsing, checks, storing)", "zh": "调用之间（解析、检查、存储）"},
    "time.split": {
        "en": "model {model} + tools {tools} + start {start} + between calls {between}",
        "zh": "模型 {model} + 工具 {tools} + 启动 {start} + 调用之间 {between}",
    },
    "time.split_help": {
        "en": "The parts add up to the duration, the time the run's events span. Start: before the first model "
        "call (the prompt built from history, memory and tool schemas; the question stored). Between calls: "
        "parsing replies, checking arguments and guards, storing each event. Parallel tool calls count once.",
        "zh": "各部分相加即为耗时，也就是这次运行的事件所跨越的时间。"
        "启动：第一次模型调用之前（用历史、记忆和工具定义组装提示词；存储问题）。"
        "调用之间：解析回复、检查参数和防护、存储每个事件。并行的工具调用只计一次。",
    },
    "time.run_end": {"en": "end · {time}", "zh": "结束 · {time}"},
    "sessions.search": {"en": "Search", "zh": "搜索"},
    "sessions.search_hint": {"en": "Words in the title or any question", "zh": "标题或任一问题中的词"},
    "sessions.model": {"en": "Model", "zh": "模型"},
    "sessions.status": {"en": "Last run", "zh": "最后一次运行"},
    "sessions.dates": {"en": "Updated between", "zh": "更新日期范围"},
    "sessions.no_run": {"en": "no run yet", "zh": "尚无运行"},
    "sessions.no_match": {"en": "No session matches these filters.", "zh": "没有符合这些条件的会话。"},
    "sessions.page": {
        "en": "Page {n} of {total} · {count} sessions",
        "zh": "第 {n} 页，共 {total} 页 · {count} 个会话",
    },
    "sessions.next": {"en": "Next", "zh": "下一页"},
    "sessions.turns": {"en": "{n} turn(s)", "zh": "{n} 轮"},
    "sessions.last_question": {"en": "last: {question}", "zh": "最后：{question}"},
    "trace.result_next": {"en": "its result comes in the next step", "zh": "结果在下一步显示"},
    "trace.replay_status": {"en": "replay", "zh": "回放"},
    "compare.rerun_running": {"en": "Running the question again…", "zh": "正在重新运行这个问题…"},
}


def td(key: str, **values: object) -> str:
    """The demo string for ``key`` in the chosen UI language, formatted with ``values``."""
    entry = STRINGS.get(key)
    if entry is None:
        return key
    text = entry.get(lang()) or entry["en"]
    return text.format(**values) if values else text
