"""The words of the experiment HTML report, in English and Chinese (``eval show --html FILE --lang en|zh``)."""

from __future__ import annotations

from agent_core.trace_export.html import ReportLang, in_lang

_WORDS: dict[str, tuple[str, str]] = {
    "title": ("Sparrow experiment: {name}", "Sparrow 实验：{name}"),
    "intro": (
        "Sparrow experiment report. This file is self-contained: it loads nothing from the network. "
        "Every item is a recorded run: open its session (the run named in each cell) in Sparrow's Traces.",
        "Sparrow 实验报告。此文件完全独立：不会从网络加载任何内容。"
        "每个条目都是一次已记录的运行：在 Sparrow 的追踪页面打开它的会话（每个单元格中给出的运行）。",
    ),
    "facts": (
        "{id} · {status} · dataset {dataset} · {repeats} repeat(s) · created {created}",
        "{id} · {status} · 数据集 {dataset} · 重复 {repeats} 次 · 创建于 {created}",
    ),
    "per_config": ("Per configuration", "按配置"),
    "against": ("Against the baseline {id}", "与基线 {id} 对比"),
    "items": ("Items", "条目"),
    "configuration": ("configuration", "配置"),
    "model": ("model", "模型"),
    "base_url": ("base URL", "接口地址"),
    "protocol": ("protocol", "协议"),
    "temperature": ("temperature", "温度"),
    "max_steps": ("max steps", "最大步数"),
    "tools": ("tools", "工具"),
    "system_prompt": ("system prompt", "系统提示词"),
    "all_builtin": ("all built-in (no approval)", "全部内置工具（无需批准）"),
    "no_tools": ("none", "无"),
    "judge": ("judge: {model}", "评审模型：{model}"),
    "judge_at": ("judge: {model} at {url}", "评审模型：{model}（{url}）"),
    "pass": ("pass", "通过"),
    "fail": ("fail", "未通过"),
    "error": ("error", "出错"),
    "interval": ("95% interval", "95% 区间"),
    "pass_at": ("pass@{k}", "pass@{k}"),
    "consistency": ("consistency", "一致性"),
    "mean_score": ("mean score", "平均分"),
    "cost": ("cost", "费用"),
    "cost_per_item": ("cost per item", "每条费用"),
    "tokens": ("tokens", "词元"),
    "failures": ("failures", "失败原因"),
    "no_changes": ("No regressions and no fixes against the baseline.", "与基线相比没有退步，也没有修复。"),
    "change": ("change", "变化"),
    "regression": ("regression", "退步"),
    "fix": ("fix", "修复"),
    "item": ("item", "条目"),
    "reason": ("reason", "原因"),
    "runs": ("runs (before → now)", "运行（之前 → 现在）"),
    "question": ("question", "问题"),
    "steps": ("{n} steps", "{n} 步"),
    "tok": ("{n} tok", "{n} 词元"),
    "run": ("run {ref}", "运行 {ref}"),
    "nothing_ran": ("No item has run yet.", "还没有条目运行过。"),
}


def experiment_words(lang: ReportLang) -> dict[str, str]:
    """Every word of the experiment report in ``lang``."""
    return in_lang(_WORDS, lang)
