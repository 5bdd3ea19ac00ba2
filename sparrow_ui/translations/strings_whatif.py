"""UI strings of what-if (edit and continue, re-sample, branches) and the step-aligned Compare; read with ``tw``."""

from __future__ import annotations

from sparrow_ui.translations.i18n import lang

STRINGS: dict[str, dict[str, str]] = {
    "diff.summary": {"en": "Right minus left: {summary}", "zh": "右侧减左侧：{summary}"},
    "diff.first": {"en": "First divergence: step {left} / {right}", "zh": "第一处不同：步骤 {left} / {right}"},
    "diff.no_divergence": {"en": "Every step is the same.", "zh": "每一步都相同。"},
    "diff.status.same": {"en": "same", "zh": "相同"},
    "diff.status.changed": {"en": "changed", "zh": "已改变"},
    "diff.status.added": {"en": "added", "zh": "新增"},
    "diff.status.removed": {"en": "removed", "zh": "删除"},
    "diff.first_badge": {"en": "first divergence", "zh": "第一处不同"},
    "diff.field.thought": {"en": "Thought", "zh": "思考"},
    "diff.field.action": {"en": "Action", "zh": "动作"},
    "diff.field.arguments": {"en": "Arguments", "zh": "参数"},
    "diff.field.observation": {"en": "Observation", "zh": "观察结果"},
    "diff.field.answer": {"en": "Answer", "zh": "回答"},
    "diff.field.error": {"en": "Error", "zh": "错误"},
    "diff.no_step": {"en": "(no step here)", "zh": "（此处没有步骤）"},
    "diff.copied": {
        "en": "Copied from the original: recorded, not run again",
        "zh": "复制自原始运行：已记录，未再次运行",
    },
    "diff.reused": {
        "en": "{tool}: recorded result reused (step {step} of the original), not called again",
        "zh": "{tool}：复用了记录的结果（原始运行的第 {step} 步），未再次调用",
    },
    "diff.edited": {"en": "Edited here ({what})", "zh": "在此处编辑（{what}）"},
    "diff.tool_error": {"en": "{tool} failed: {error}", "zh": "{tool} 失败：{error}"},
    "diff.streaming": {"en": "Running again…", "zh": "正在再次运行…"},
    "whatif.edit": {"en": "Edit and continue from here", "zh": "从此处编辑并继续"},
    "whatif.edit_help": {
        "en": "A new branch: steps before this one are copied as recorded (no model call is sent again), "
        "this step is changed, and the run goes on live. The original is not changed.",
        "zh": "新建一个分支：此前的步骤按记录复制（不会再次请求模型），修改这一步，"
        "然后继续实时运行。原始运行不会改变。",
    },
    "whatif.what": {"en": "What to change", "zh": "要修改什么"},
    "whatif.kind.observation": {"en": "The tool's result", "zh": "工具的结果"},
    "whatif.kind.action": {"en": "The action and its arguments", "zh": "动作及其参数"},
    "whatif.kind.thought": {"en": "The thought", "zh": "思考"},
    "whatif.kind.answer": {"en": "A final answer", "zh": "最终回答"},
    "whatif.kind.settings": {"en": "Only the settings (ask again)", "zh": "只改设置（重新询问）"},
    "whatif.call": {"en": "Which call", "zh": "哪一次调用"},
    "whatif.text": {"en": "New text", "zh": "新内容"},
    "whatif.tool": {"en": "Tool", "zh": "工具"},
    "whatif.arguments": {"en": "Arguments (JSON object)", "zh": "参数（JSON 对象）"},
    "whatif.settings": {"en": "Settings from this step on", "zh": "从这一步起的设置"},
    "whatif.model": {"en": "Model", "zh": "模型"},
    "whatif.base_url": {"en": "Base URL (empty: the sidebar's)", "zh": "Base URL（留空：使用侧边栏的）"},
    "whatif.protocol": {"en": "Protocol", "zh": "协议"},
    "whatif.temperature": {"en": "Temperature", "zh": "温度"},
    "whatif.instructions": {"en": "Extra system-prompt line", "zh": "额外的系统提示词"},
    "whatif.tools": {"en": "Enabled tools", "zh": "启用的工具"},
    "whatif.max_steps": {"en": "Max steps", "zh": "最大步数"},
    "whatif.reuse": {"en": "Reuse recorded tool results", "zh": "复用已记录的工具结果"},
    "whatif.reuse_help": {
        "en": "A call with the same tool and arguments as the original made gets the recorded result. "
        "Tools with effects (that ask for approval, untrusted MCP tools, remember) always run.",
        "zh": "与原始运行相同工具、相同参数的调用直接使用记录的结果。"
        "有副作用的工具（需要批准的、不受信任的 MCP 工具、remember）总会运行。",
    },
    "whatif.go": {"en": "Continue", "zh": "继续"},
    "whatif.running": {"en": "Running the branch…", "zh": "正在运行分支…"},
    "whatif.bad_json": {"en": "The arguments are not a JSON object: {error}", "zh": "参数不是 JSON 对象：{error}"},
    "whatif.needs_model": {
        "en": "Configure a model in the sidebar to continue a branch.",
        "zh": "请先在侧边栏配置模型，才能继续分支。",
    },
    "resample.button": {"en": "Re-sample ×K", "zh": "重新采样 ×K"},
    "resample.help": {
        "en": "Ask the model K times with exactly this step's messages: was it a fluke or systematic?",
        "zh": "用这一步完全相同的消息询问模型 K 次：是偶然还是必然？",
    },
    "resample.k": {"en": "K (samples per model)", "zh": "K（每个模型的采样数）"},
    "resample.models": {"en": "Models (comma-separated; empty: the run's)", "zh": "模型（逗号分隔；留空：本次运行的）"},
    "resample.go": {"en": "Sample", "zh": "采样"},
    "resample.chart": {"en": "What it would do next ({n} samples)", "zh": "接下来会做什么（{n} 个样本）"},
    "resample.outcome": {"en": "next action or answer", "zh": "下一个动作或回答"},
    "resample.count": {"en": "samples", "zh": "样本数"},
    "resample.branch": {"en": "Branch from this ({count}×)", "zh": "以此建立分支（{count}×）"},
    "branches.title": {"en": "Branches", "zh": "分支"},
    "branches.original": {"en": "original", "zh": "原始"},
    "branches.at_step": {"en": "at step {n}", "zh": "第 {n} 步"},
    "branches.open": {"en": "Open", "zh": "打开"},
    "branches.running": {"en": "running", "zh": "运行中"},
}


def tw(key: str, **values: object) -> str:
    """The what-if string for ``key`` in the chosen UI language, formatted with ``values``."""
    entry = STRINGS.get(key)
    if entry is None:
        return key
    text = entry.get(lang()) or entry["en"]
    return text.format(**values) if values else text
