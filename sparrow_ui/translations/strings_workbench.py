"""English and 简体中文 strings for the Chat page's turn actions, step status chips and markers (issue 14)."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "turn.trace": {"en": "Trace", "zh": "追踪"},
    "turn.trace_help": {"en": "Show this turn's steps in the trace column", "zh": "在追踪栏中显示这一轮的步骤"},
    "turn.replay": {"en": "Replay", "zh": "回放"},
    "turn.replay_help": {
        "en": "Replay this turn step by step on the Traces page",
        "zh": "在追踪页面逐步回放这一轮",
    },
    "turn.shown": {"en": "shown", "zh": "显示中"},
    "chip.ok": {"en": "ok", "zh": "正常"},
    "chip.tool_error": {"en": "tool error", "zh": "工具错误"},
    "chip.model_retry": {"en": "retried after {what}", "zh": "{what} 后已重试"},
    "chip.an_error": {"en": "an error", "zh": "出错"},
    "chip.no_reply": {"en": "no reply", "zh": "无响应"},
    "chip.model_error": {"en": "model error", "zh": "模型错误"},
    "chip.stopped": {"en": "stopped by user", "zh": "已被用户停止"},
    "chip.step_limit": {"en": "step limit reached", "zh": "已达步数上限"},
    "chip.repeated": {"en": "same action as step {n}", "zh": "与第 {n} 步的操作相同"},
    "chip.running": {"en": "running", "zh": "运行中"},
    "chip.waiting": {"en": "waiting for approval", "zh": "等待批准"},
    "chip.answer": {"en": "answer", "zh": "回答"},
    "trace.end.max_steps": {
        "en": "The run stopped here: it reached the step limit ({n} steps) without a final answer.",
        "zh": "运行在此停止：已达步数上限（{n} 步），没有得到最终答案。",
    },
    "trace.end.cancelled": {"en": "Stopped by the user here.", "zh": "用户在此停止了运行。"},
    "trace.end.timeout": {"en": "The run's time limit ended it here.", "zh": "运行在此因时间上限而结束。"},
    "trace.repeated": {
        "en": "The model repeated the same action with the same arguments as in step {n}.",
        "zh": "模型重复了第 {n} 步中参数完全相同的操作。",
    },
    "trace.raw_arguments": {
        "en": "The model sent these arguments, which are not valid JSON:",
        "zh": "模型发送的参数不是有效的 JSON：",
    },
    "traces.chart.waterfall_note": {
        "en": "The first call starts {time} after the run: Sparrow builds the prompt (history, memory, tool "
        "schemas) and opens the connection. Gaps between bars are Sparrow's own work (parsing the reply, "
        "validating arguments, recording events).",
        "zh": "第一次调用在运行开始 {time} 后才开始：Sparrow 在组装提示词（历史、记忆、工具定义）并建立连接。"
        "条形之间的空隙是 Sparrow 自身的工作（解析回复、校验参数、记录事件）。",
    },
    "traces.chart.other_note": {
        "en": "“other” is the turn's time outside model and tool calls: building prompts, parsing replies, "
        "recording events, and waiting for approvals.",
        "zh": "“其他”是本轮在模型与工具调用之外的时间：组装提示词、解析回复、记录事件以及等待批准。",
    },
    "session.delete_confirm": {
        "en": "Delete “{title}” and its snapshots for good? This cannot be undone.",
        "zh": "永久删除“{title}”及其快照？此操作无法撤销。",
    },
    "session.delete_yes": {"en": "Delete for good", "zh": "永久删除"},
    "session.rename_ok": {"en": "Rename", "zh": "重命名"},
    "unit.tokens": {"en": "tokens", "zh": "token"},
    "trace.stopped": {"en": "Stopped by the user.", "zh": "已被用户停止。"},
}
