"""English and 简体中文 strings for the UI; ``t(key, **values)`` picks the language chosen in the sidebar."""

from __future__ import annotations

from agent_core.guards.untrusted import neutralize
from sparrow_ui.shell import settings
from sparrow_ui.translations.strings_access import STRINGS as ACCESS_STRINGS
from sparrow_ui.translations.strings_fit import STRINGS as FIT_STRINGS
from sparrow_ui.translations.strings_mcp import STRINGS as MCP_STRINGS
from sparrow_ui.translations.strings_memory import STRINGS as MEMORY_STRINGS
from sparrow_ui.translations.strings_repeat import STRINGS as REPEAT_STRINGS
from sparrow_ui.translations.strings_traces import STRINGS as TRACES_STRINGS
from sparrow_ui.translations.strings_trust import STRINGS as TRUST_STRINGS
from sparrow_ui.translations.strings_workbench import STRINGS as WORKBENCH_STRINGS

LANGUAGES = {"en": "English", "zh": "简体中文"}

STRINGS: dict[str, dict[str, str]] = {
    "nav.chat": {"en": "Chat", "zh": "对话"},
    "nav.sessions": {"en": "Sessions", "zh": "会话"},
    "nav.traces": {"en": "Traces", "zh": "追踪"},
    "nav.memory": {"en": "Memory", "zh": "记忆"},
    "nav.tools": {"en": "Tools", "zh": "工具"},
    "tools.intro": {
        "en": "The tools the agent may call. Enable or disable them in the sidebar (Agent).",
        "zh": "智能体可以调用的工具。可在侧边栏（智能体）中启用或停用。",
    },
    "tools.needs_approval": {"en": "asks for approval before each call", "zh": "每次调用前需要批准"},
    "tools.ask_first": {"en": "Ask before each call", "zh": "每次调用前询问"},
    "tools.ask_first_why": {
        "en": "On by default because this tool {why}. Turn it off to trust the tool.",
        "zh": "默认开启，因为此工具会{why}。关闭即表示信任此工具。",
    },
    "tools.ask_first_help": {
        "en": "Pause the run until you approve or deny each call to this tool.",
        "zh": "每次调用此工具前暂停运行，等待你批准或拒绝。",
    },
    "tools.timeout": {"en": "timeout {seconds:g} s", "zh": "超时 {seconds:g} 秒"},
    "tools.enabled": {"en": "enabled", "zh": "已启用"},
    "tools.disabled": {"en": "disabled", "zh": "已停用"},
    "tools.custom_title": {"en": "Add your own tools", "zh": "添加自己的工具"},
    "tools.custom_body": {
        "en": "Write a typed function with a Google-style docstring, decorate it with `@tool` "
        "(`from agent_core import tool`), then either list its module in `SPARROW_TOOLS` "
        "(e.g. `SPARROW_TOOLS=mypkg.tools,/path/to/my_tools.py`) or declare an entry point in the group "
        "`sparrow.tools`. Restart the app to load it. See `examples/my_tools.py`.",
        "zh": "编写带类型注解和 Google 风格文档字符串的函数，用 `@tool` 装饰（`from agent_core import tool`），"
        "然后在 `SPARROW_TOOLS` 中列出它所在的模块（例如 `SPARROW_TOOLS=mypkg.tools,/path/to/my_tools.py`），"
        "或在 `sparrow.tools` 组中声明入口点。重启应用后生效。参见 `examples/my_tools.py`。",
    },
    "lang": {"en": "Language", "zh": "语言"},
    "model.header": {"en": "Model", "zh": "模型"},
    "model.provider": {"en": "Provider", "zh": "服务商"},
    "model.base_url": {"en": "Base URL", "zh": "接口地址 (Base URL)"},
    "model.name": {"en": "Model name", "zh": "模型名称"},
    "model.key": {"en": "API key", "zh": "API 密钥"},
    "model.key_help": {
        "en": "Kept only in this browser session (or read from OPENAI_API_KEY / .streamlit/secrets.toml). "
        "Never stored.",
        "zh": "只保存在当前浏览器会话中（或读取 OPENAI_API_KEY / .streamlit/secrets.toml），从不写入存储。",
    },
    "model.key_from_env": {"en": "Using the key from the environment.", "zh": "正在使用环境变量中的密钥。"},
    "model.test": {"en": "Test connection", "zh": "测试连接"},
    "model.test_ok": {
        "en": "Connected to {url}: {count} models available.",
        "zh": "已连接 {url}：可用模型 {count} 个。",
    },
    "model.test_model_missing": {
        "en": "Connected, but {url} does not list the model '{model}'.",
        "zh": "已连接，但 {url} 的模型列表中没有 '{model}'。",
    },
    "model.test_failed": {"en": "Connection failed: {error}", "zh": "连接失败：{error}"},
    "agent.header": {"en": "Agent", "zh": "智能体"},
    "agent.protocol": {"en": "Protocol", "zh": "协议"},
    "agent.protocol.react": {"en": "ReAct text", "zh": "ReAct 文本"},
    "agent.protocol.tools": {"en": "Native tools", "zh": "原生工具调用"},
    "agent.protocol.json": {"en": "JSON schema", "zh": "JSON 模式"},
    "agent.max_steps": {"en": "Max steps", "zh": "最大步数"},
    "agent.temperature": {"en": "Temperature", "zh": "温度"},
    "agent.tools": {"en": "Tools", "zh": "工具"},
    "agent.max_tokens": {"en": "Max tokens per reply", "zh": "每次回复的最大 token 数"},
    "agent.max_tools": {"en": "Tools offered per step (empty = all)", "zh": "每步提供的工具数（留空 = 全部）"},
    "agent.max_tools_all": {"en": "all", "zh": "全部"},
    "agent.max_tools_help": {
        "en": "With many tools, offer only the most relevant ones to the model each step (BM25 over names and "
        "descriptions). The trace shows which were offered.",
        "zh": "工具较多时，每一步只向模型提供最相关的几个（按名称和描述的 BM25 排序）。追踪面板会显示提供了哪些。",
    },
    "session.header": {"en": "Session", "zh": "会话"},
    "session.new": {"en": "New chat", "zh": "新对话"},
    "session.save": {"en": "Save snapshot", "zh": "保存快照"},
    "session.snapshot_name": {"en": "Snapshot name", "zh": "快照名称"},
    "session.saved": {"en": "Saved snapshot '{name}'.", "zh": "已保存快照「{name}」。"},
    "session.download": {"en": "Download session", "zh": "下载会话"},
    "session.upload": {"en": "Upload a session file", "zh": "上传会话文件"},
    "session.uploaded": {"en": "Imported as a new session: {title}", "zh": "已导入为新会话：{title}"},
    "session.imported": {"en": "Imported copy", "zh": "导入的副本"},
    "session.imported_at": {"en": "Imported from a session file on {when}", "zh": "于 {when} 从会话文件导入"},
    "session.upload_failed": {"en": "This file cannot be imported: {error}", "zh": "无法导入此文件：{error}"},
    "session.load": {"en": "Open a session", "zh": "打开会话"},
    "session.open": {"en": "Open", "zh": "打开"},
    "session.fork": {"en": "Open as new session", "zh": "作为新会话打开"},
    "session.rename": {"en": "Rename", "zh": "重命名"},
    "session.delete": {"en": "Delete", "zh": "删除"},
    "session.deleted": {"en": "Session deleted.", "zh": "会话已删除。"},
    "session.none": {"en": "No saved sessions yet.", "zh": "还没有保存的会话。"},
    "session.not_found": {
        "en": "Session {id} does not exist, or it is not yours. A new chat was started.",
        "zh": "会话 {id} 不存在，或者不属于你。已开始新的对话。",
    },
    "session.snapshots": {"en": "Snapshots", "zh": "快照"},
    "session.turns": {"en": "{count} turns", "zh": "{count} 轮"},
    "session.metrics": {"en": "This session", "zh": "本会话"},
    "session.metrics_done": {"en": "Finished turns", "zh": "已完成的轮次"},
    "chat.placeholder": {"en": "Ask anything…", "zh": "输入你的问题…"},
    "chat.placeholder_off": {"en": "Configure a model in the sidebar to chat", "zh": "请先在侧边栏配置模型"},
    "chat.stop": {"en": "Stop", "zh": "停止"},
    "chat.stopping": {"en": "Stopping the run…", "zh": "正在停止…"},
    "chat.show_trace": {"en": "Trace", "zh": "追踪"},
    "chat.earlier": {"en": "Show {count} earlier turns", "zh": "显示更早的 {count} 轮"},
    "chat.thinking": {"en": "Thinking…", "zh": "思考中…"},
    "chat.no_answer": {"en": "No answer ({status}).", "zh": "没有答案（{status}）。"},
    "chat.interrupted": {
        "en": "This run was interrupted (the server stopped while it was working).",
        "zh": "这次运行被中断了（工作时服务器停止了）。",
    },
    "chat.resume": {"en": "Resume the run", "zh": "继续运行"},
    "chat.busy": {"en": "A run is already in progress in this session.", "zh": "此会话中已有正在进行的运行。"},
    "chat.queued": {
        "en": "Waiting for the run in progress to finish; then this question goes next: “{question}”",
        "zh": "等待当前运行结束后，接着回答这个问题：“{question}”",
    },
    "chat.empty": {
        "en": "Ask a question. Every Thought, Action and Observation will appear in the trace on the right.",
        "zh": "提个问题吧。每一步的思考、行动和观察都会显示在右侧的追踪面板中。",
    },
    "trace.header": {"en": "Trace", "zh": "追踪"},
    "trace.turn": {"en": "Turn {n}", "zh": "第 {n} 轮"},
    "trace.step": {"en": "Step {n}", "zh": "第 {n} 步"},
    "trace.thought": {"en": "Thought", "zh": "思考"},
    "trace.reasoning": {"en": "Reasoning", "zh": "推理过程"},
    "trace.action": {"en": "Action", "zh": "行动"},
    "trace.observation": {"en": "Observation", "zh": "观察"},
    "trace.answer": {"en": "Final Answer", "zh": "最终答案"},
    "trace.format_error": {"en": "Unusable reply: {error}", "zh": "回复格式无法解析：{error}"},
    "trace.model_error": {"en": "Model error: {error}", "zh": "模型错误：{error}"},
    "trace.tool_error": {"en": "Tool error: {error}", "zh": "工具错误：{error}"},
    "trace.running": {"en": "running…", "zh": "运行中…"},
    "trace.resumed": {"en": "Resumed here after an interruption", "zh": "中断后从这里继续"},
    "trace.ttft": {"en": "time to first token {time}", "zh": "首个 token 用时 {time}"},
    "trace.raw": {"en": "Raw model output", "zh": "模型原始输出"},
    "trace.none": {"en": "No turn selected yet.", "zh": "尚未选择任何一轮对话。"},
    "trace.truncated": {"en": "(truncated for the model)", "zh": "（给模型时已截断）"},
    "trace.offered": {"en": "Tools offered: {tools}", "zh": "提供的工具：{tools}"},
    "metrics.step": {"en": "{n} step", "zh": "{n} 步"},
    "metrics.steps": {"en": "{n} steps", "zh": "{n} 步"},
    "metrics.tokens": {"en": "{tokens} tokens", "zh": "{tokens} tokens"},
    "approval.title": {"en": "The agent wants to run {tool}. Allow it?", "zh": "智能体想要运行 {tool}，是否允许？"},
    "approval.approve": {"en": "Approve", "zh": "允许"},
    "approval.deny": {"en": "Deny", "zh": "拒绝"},
    "approval.pending": {"en": ":orange[awaiting approval]", "zh": ":orange[等待批准]"},
    "approval.approved": {"en": ":green[approved]", "zh": ":green[已允许]"},
    "approval.denied": {"en": ":red[denied]", "zh": ":red[已拒绝]"},
    "approval.auto": {"en": "approved by settings", "zh": "按设置自动允许"},
    "trace.flagged": {"en": "Masked in the {source}: {found}", "zh": "已在{source}中遮盖：{found}"},
    "trace.source.tool_output": {"en": "tool output", "zh": "工具输出"},
    "trace.source.final_answer": {"en": "answer", "zh": "答案"},
    "trace.source.model_output": {"en": "model output", "zh": "模型输出"},
    "summary.turn": {"en": "This turn", "zh": "本轮"},
    "summary.no_tools": {"en": "no tool calls", "zh": "未调用工具"},
    "summary.call": {"en": "{count} tool call: {tools}", "zh": "{count} 次工具调用：{tools}"},
    "summary.calls": {"en": "{count} tool calls: {tools}", "zh": "{count} 次工具调用：{tools}"},
    "summary.error": {"en": "{count} error", "zh": "{count} 个错误"},
    "summary.errors": {"en": "{count} errors", "zh": "{count} 个错误"},
    "summary.in_tools": {"en": "{time} in tools", "zh": "工具耗时 {time}"},
    "status.completed": {"en": "completed", "zh": "已完成"},
    "status.max_steps": {"en": "step limit reached", "zh": "达到步数上限"},
    "status.timeout": {"en": "time limit reached", "zh": "超时"},
    "status.cancelled": {"en": "stopped", "zh": "已停止"},
    "status.format_error": {"en": "unusable replies", "zh": "回复格式错误"},
    "status.error": {"en": "error", "zh": "错误"},
    "onboard.title": {"en": "Connect a model to start chatting", "zh": "连接一个模型即可开始对话"},
    "onboard.body": {
        "en": "Sparrow talks to any OpenAI-compatible endpoint. Pick one of these, then fill in the sidebar:\n\n"
        "- **OpenAI**, **DeepSeek**, **Qwen (DashScope)** or **Moonshot**: choose the provider and paste an "
        "API key (kept only in this browser session).\n"
        "- **Ollama** on this machine (no key needed): `ollama serve`, `ollama pull qwen2.5:7b`, then choose "
        "*Ollama (local)*.\n"
        "- **vLLM / llama.cpp server / any URL**: choose *custom* and type the base URL, e.g. "
        "`http://localhost:8000/v1`.\n\n"
        "Or set `OPENAI_API_KEY`, `OPENAI_BASE_URL` and `SPARROW_MODEL` before `streamlit run app.py`.\n\n"
        "Saved sessions can be opened and replayed without any model: see the Sessions page.",
        "zh": "Sparrow 可以连接任何兼容 OpenAI 接口的服务。选择以下任意一种，然后在侧边栏填写：\n\n"
        "- **OpenAI**、**DeepSeek**、**通义千问（DashScope）** 或 **Moonshot**：选择服务商并粘贴 API 密钥"
        "（只保存在当前浏览器会话中）。\n"
        "- 本机的 **Ollama**（无需密钥）：`ollama serve`、`ollama pull qwen2.5:7b`，然后选择 *Ollama (local)*。\n"
        "- **vLLM / llama.cpp server / 任意地址**：选择 *custom* 并填写接口地址，例如 `http://localhost:8000/v1`。\n\n"
        "也可以在运行 `streamlit run app.py` 之前设置 `OPENAI_API_KEY`、`OPENAI_BASE_URL` 和 `SPARROW_MODEL`。\n\n"
        "已保存的会话无需模型也能打开和回放：请看“会话”页面。",
    },
}


STRINGS.update(TRACES_STRINGS)
STRINGS.update(MEMORY_STRINGS)
STRINGS.update(WORKBENCH_STRINGS)
STRINGS.update(MCP_STRINGS)
STRINGS.update(ACCESS_STRINGS)
STRINGS.update(TRUST_STRINGS)
STRINGS.update(REPEAT_STRINGS)
STRINGS.update(FIT_STRINGS)


def lang() -> str:
    """The chosen UI language code (the sidebar's language control, kept by sparrow_ui.shell.settings)."""
    return settings.language()


def t(key: str, **values: object) -> str:
    """The string for ``key`` in the chosen language, formatted with ``values``."""
    entry = STRINGS.get(key)
    if entry is None:
        return key
    text = entry.get(lang()) or entry["en"]
    # values come from models, tools, endpoints and imported files: no images or HTML from them
    return text.format(**{k: neutralize(v) if isinstance(v, str) else v for k, v in values.items()}) if values else text


def status_label(status: str | None) -> str:
    """A run status in words."""
    return t(f"status.{status}") if status else t("trace.running")
