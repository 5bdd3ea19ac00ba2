"""UI strings of the Traces page (merged into ``i18n.STRINGS``)."""

STRINGS: dict[str, dict[str, str]] = {
    # page
    "traces.no_sessions": {
        "en": "No saved sessions yet. Ask a question on the Chat page (or upload a session file there): "
        "its trace appears here.",
        "zh": "还没有保存的会话。在“对话”页面提个问题（或上传会话文件），它的追踪就会出现在这里。",
    },
    "traces.no_runs": {"en": "This session has no runs yet.", "zh": "这个会话还没有任何运行。"},
    "traces.session": {"en": "Session", "zh": "会话"},
    "traces.run": {"en": "Run (turn)", "zh": "运行（轮次）"},
    "traces.open_chat": {"en": "Chat", "zh": "对话"},
    "traces.tab.run": {"en": ":material/timeline: Run", "zh": ":material/timeline: 本次运行"},
    "traces.tab.session": {"en": ":material/table_rows: Session overview", "zh": ":material/table_rows: 会话概览"},
    "traces.tab.replay": {"en": ":material/play_circle: Replay", "zh": ":material/play_circle: 回放"},
    "traces.live": {
        "en": "A run of this session is in progress: refresh to see its latest steps.",
        "zh": "这个会话有一次运行正在进行：刷新即可看到最新的步骤。",
    },
    "traces.refresh": {"en": "Refresh", "zh": "刷新"},
    "traces.status.interrupted": {"en": "interrupted", "zh": "已中断"},
    "traces.steps": {"en": "Steps", "zh": "步骤"},
    "traces.inspector": {"en": "Inspector", "zh": "检查器"},
    # charts
    "traces.chart.waterfall": {
        "en": "Where the time went: model and tool calls",
        "zh": "时间花在哪里：模型调用与工具调用",
    },
    "traces.chart.tokens": {"en": "Tokens per step", "zh": "每步的 token"},
    "traces.chart.session_tokens": {"en": "Tokens per turn", "zh": "每轮的 token"},
    "traces.chart.session_time": {"en": "Time per turn", "zh": "每轮的耗时"},
    "traces.chart.ms": {"en": "ms since the run started", "zh": "自运行开始的毫秒数"},
    "traces.chart.seconds": {"en": "seconds", "zh": "秒"},
    "traces.kind.model": {"en": "model call", "zh": "模型调用"},
    "traces.kind.tool": {"en": "tool call", "zh": "工具调用"},
    "traces.kind.error": {"en": "error", "zh": "错误"},
    "traces.kind.unfinished": {"en": "never finished", "zh": "未完成"},
    "traces.tokens.prompt": {"en": "prompt", "zh": "输入"},
    "traces.tokens.completion": {"en": "completion", "zh": "输出"},
    "traces.tokens.source": {"en": "Counted by", "zh": "计数来源"},
    "traces.tokens.estimated": {"en": "Sparrow's estimate", "zh": "Sparrow 估算"},
    "traces.tokens.reported": {"en": "the provider", "zh": "服务商"},
    "traces.tokens.estimated_help": {
        "en": "Lighter bars and ~ mark estimated token counts: the provider sent no usage, so Sparrow counted.",
        "zh": "颜色较浅的柱和 ~ 表示估算的 token 数：服务商没有返回用量，由 Sparrow 自行估算。",
    },
    "traces.time.model": {"en": "model", "zh": "模型"},
    "traces.time.tools": {"en": "tools", "zh": "工具"},
    "traces.time.other": {"en": "other", "zh": "其他"},
    # table columns
    "traces.col.call": {"en": "Call", "zh": "调用"},
    "traces.col.kind": {"en": "Kind", "zh": "类型"},
    "traces.col.start_ms": {"en": "Starts at (ms)", "zh": "开始于（毫秒）"},
    "traces.col.duration": {"en": "Duration", "zh": "耗时"},
    "traces.col.tokens": {"en": "Tokens", "zh": "Token"},
    "traces.col.estimated": {"en": "~", "zh": "~"},
    "traces.col.error": {"en": "Error", "zh": "错误"},
    "traces.col.errors": {"en": "Errors", "zh": "错误数"},
    "traces.col.step": {"en": "Step", "zh": "步"},
    "traces.col.steps": {"en": "Steps", "zh": "步数"},
    "traces.col.turn": {"en": "Turn", "zh": "轮次"},
    "traces.col.turns": {"en": "Turns", "zh": "轮数"},
    "traces.col.question": {"en": "Question", "zh": "问题"},
    "traces.col.status": {"en": "Status", "zh": "状态"},
    "traces.col.tool_calls": {"en": "Tool calls", "zh": "工具调用"},
    "traces.col.cost": {"en": "Cost", "zh": "费用"},
    "traces.col.cost_help": {
        "en": "USD from the price table; blank when the model's price is unknown.",
        "zh": "按价格表计算的美元费用；模型价格未知时留空。",
    },
    "traces.col.latency": {"en": "Latency", "zh": "延迟"},
    "traces.col.ttft": {"en": "First token", "zh": "首 token"},
    "traces.col.model_time": {"en": "Model time", "zh": "模型耗时"},
    "traces.col.tool_time": {"en": "Tool time", "zh": "工具耗时"},
    "traces.col.prompt": {"en": "Prompt tokens", "zh": "输入 token"},
    "traces.col.completion": {"en": "Completion tokens", "zh": "输出 token"},
    "traces.col.split": {"en": "model {model} · tools {tools}", "zh": "模型 {model} · 工具 {tools}"},
    "traces.col.started": {"en": "Started", "zh": "开始时间"},
    # steps table
    "traces.filter.errors": {"en": "Errors only", "zh": "只看错误"},
    "traces.filter.tools": {"en": "Steps that called", "zh": "调用了以下工具的步骤"},
    "traces.filter.all_tools": {"en": "any tool, or none", "zh": "任意工具或不调用工具"},
    "traces.filter.none": {"en": "No step matches these filters.", "zh": "没有符合筛选条件的步骤。"},
    "traces.table.hint": {
        "en": "Click a column header to sort; click a row to open the step in the Inspector.",
        "zh": "点击列标题排序；点击某一行即可在检查器中打开该步骤。",
    },
    # inspector
    "traces.inspect.step": {"en": "Step to inspect", "zh": "要检查的步骤"},
    "traces.inspect.no_steps": {"en": "This run has no steps.", "zh": "这次运行没有任何步骤。"},
    "traces.inspect.no_reply": {
        "en": "No model reply was recorded for this step (the run was interrupted before it ended).",
        "zh": "这一步没有记录到模型回复（运行在完成前被中断）。",
    },
    "traces.inspect.attempts": {
        "en": "This step ran {count} times (it was redone after an interruption); the last attempt is shown.",
        "zh": "这一步运行了 {count} 次（中断后重做）；这里显示最后一次。",
    },
    "traces.inspect.messages": {"en": "Messages sent ({count})", "zh": "发送的消息（{count}）"},
    "traces.inspect.messages_help": {
        "en": "Exactly what was sent to {model} for this step, in order.",
        "zh": "这一步按顺序发送给 {model} 的全部内容，原样呈现。",
    },
    "traces.inspect.no_messages": {"en": "No messages were recorded.", "zh": "没有记录到消息。"},
    "traces.inspect.as_json": {"en": "All messages as JSON", "zh": "全部消息（JSON）"},
    "traces.inspect.parsed": {"en": "Parsed", "zh": "解析结果"},
    "traces.inspect.nothing_parsed": {
        "en": "Nothing could be parsed from this reply.",
        "zh": "无法从这条回复中解析出任何内容。",
    },
    "traces.inspect.observations": {"en": "Observations ({count})", "zh": "观察（{count}）"},
    "traces.inspect.no_tools": {"en": "This step called no tool.", "zh": "这一步没有调用工具。"},
    "traces.inspect.details": {
        "en": "Details (shown in the UI, never sent to the model)",
        "zh": "详情（仅界面显示，不会发给模型）",
    },
    # replay
    "traces.replay.whole_session": {"en": "Replay the whole session", "zh": "回放整个会话"},
    "traces.replay.restart": {"en": "Back to the start", "zh": "回到开头"},
    "traces.replay.previous": {"en": "Previous", "zh": "上一步"},
    "traces.replay.play": {"en": "Play", "zh": "播放"},
    "traces.replay.pause": {"en": "Pause", "zh": "暂停"},
    "traces.replay.next": {"en": "Next step", "zh": "下一步"},
    "traces.replay.end": {"en": "Jump to the end", "zh": "跳到结尾"},
    "traces.replay.speed": {"en": "Demo pace", "zh": "演示节奏"},
    "traces.replay.pace": {
        "en": "A pace for watching, not the recorded timing: at 1× each step shows for {seconds} s and replies "
        "stream at {words} words a second. The run's real durations are in the waterfall and the steps.",
        "zh": "这是便于观看的节奏，而不是录制时的真实耗时：1× 时每一步停留 {seconds} 秒，"
        "回复以每秒 {words} 个词的速度流出。运行的真实耗时见瀑布图和步骤表。",
    },
    "traces.replay.frame": {"en": "{n} of {total}", "zh": "{n} / {total}"},
    "traces.replay.question": {"en": "the question", "zh": "提问"},
    "traces.replay.resumed": {"en": "resumed", "zh": "继续运行"},
    "traces.replay.reply": {"en": "model reply", "zh": "模型回复"},
    "traces.replay.empty": {"en": "Nothing to replay.", "zh": "没有可回放的内容。"},
    "traces.replay.interrupted": {
        "en": "The recording ends here: this run was interrupted before it finished.",
        "zh": "记录到此为止：这次运行在完成之前被中断了。",
    },
    # export
    "traces.export.button": {"en": "Export", "zh": "导出"},
    "traces.export.jsonl": {"en": "Events (JSON Lines)", "zh": "事件（JSON Lines）"},
    "traces.export.otel": {"en": "OpenTelemetry (OTLP/JSON)", "zh": "OpenTelemetry（OTLP/JSON）"},
    "traces.export.md": {"en": "Report (Markdown)", "zh": "报告（Markdown）"},
    "traces.export.content": {"en": "Include prompts and replies in spans", "zh": "在 span 中包含提示词和回复"},
    "traces.export.content_help": {
        "en": "Adds the messages, outputs and tool results to the OpenTelemetry spans. Leave off when the trace "
        "goes somewhere the conversation should not.",
        "zh": "把消息、输出和工具结果写入 OpenTelemetry span。若追踪数据要发往不该看到对话内容的地方，请保持关闭。",
    },
    "traces.export.send": {"en": "Send to OTLP endpoint", "zh": "发送到 OTLP 端点"},
    "traces.export.endpoint": {"en": "Endpoint: `{url}`", "zh": "端点：`{url}`"},
    "traces.export.no_endpoint": {
        "en": "Set `OTEL_EXPORTER_OTLP_ENDPOINT` (e.g. `http://localhost:4318`) before starting the app to send traces "
        "to Jaeger, Phoenix, Langfuse or an OpenTelemetry Collector.",
        "zh": "在启动应用前设置 `OTEL_EXPORTER_OTLP_ENDPOINT`（例如 `http://localhost:4318`），即可把追踪发送到 "
        "Jaeger、Phoenix、Langfuse 或 OpenTelemetry Collector。",
    },
    "traces.export.sending": {"en": "Sending to {url}…", "zh": "正在发送到 {url}…"},
    "traces.export.sent": {"en": "Sent {count} spans to {url}.", "zh": "已向 {url} 发送 {count} 个 span。"},
    "traces.export.send_failed": {"en": "Could not send the trace: {error}", "zh": "发送追踪失败：{error}"},
}
