"""UI strings of the Experiments page and of "Add to dataset"; ``te(key)`` reads them."""

from __future__ import annotations

from agent_core.guards.untrusted import neutralize
from sparrow_ui.translations.i18n import lang

STRINGS: dict[str, dict[str, str]] = {
    "nav.experiments": {"en": "Experiments", "zh": "实验"},
    "exp.intro": {
        "en": "Run a dataset through the agent with several configurations, score every answer, see what got worse. "
        "Every item is an ordinary recorded run: its trace opens in Traces.",
        "zh": "用多种配置让智能体跑一遍数据集，为每个回答评分，看看哪里变差了。"
        "每个条目都是一次普通的已记录运行：其追踪可在“追踪”页打开。",
    },
    "exp.none": {"en": "No experiments yet.", "zh": "还没有实验。"},
    "exp.example_banner": {
        "en": "**Example experiment**: run by a rule-driven stand-in model through the real agent loop, tools and "
        "scorers (no key, no network), to show this page. Not a real model's results.",
        "zh": "**示例实验**：由基于规则的替身模型经真实的智能体循环、工具和评分器运行（无需密钥、无需网络），"
        "用于展示本页面。并非真实模型的结果。",
    },
    "exp.pick": {"en": "Experiment", "zh": "实验"},
    "exp.all_experiments": {"en": "All {count} experiments", "zh": "全部 {count} 个实验"},
    "exp.summary": {"en": "By configuration", "zh": "按配置"},
    "exp.charts": {"en": "Charts", "zh": "图表"},
    "exp.changes": {"en": "Against a baseline", "zh": "与基线对比"},
    "exp.baseline": {"en": "Baseline experiment", "zh": "基线实验"},
    "exp.no_baseline": {"en": "(none)", "zh": "（无）"},
    "exp.no_changes": {
        "en": "No regressions and no fixes against this baseline.",
        "zh": "与该基线相比，没有退步也没有改进。",
    },
    "exp.matrix": {"en": "Items × configurations", "zh": "条目 × 配置"},
    "exp.matrix_help": {
        "en": "Each cell: ✅ passed / ❌ failed / ⚠️ error, score, steps, tokens, cost, latency. Click a cell to open "
        "that item's trace.",
        "zh": "每格：✅ 通过 / ❌ 未通过 / ⚠️ 出错，得分、步数、token、费用、耗时。点击单元格打开该条目的追踪。",
    },
    "exp.exports": {"en": "Download", "zh": "下载"},
    "exp.run_title": {"en": "Run an experiment", "zh": "运行实验"},
    "exp.dataset": {"en": "Dataset", "zh": "数据集"},
    "exp.models": {"en": "Models (comma-separated)", "zh": "模型（逗号分隔）"},
    "exp.models_help": {
        "en": "Each model × protocol is one configuration; the endpoint and key are the sidebar's.",
        "zh": "每个模型 × 协议是一种配置；接口地址和密钥取自侧边栏。",
    },
    "exp.protocols": {"en": "Protocols", "zh": "协议"},
    "exp.max_steps": {"en": "Max steps", "zh": "最大步数"},
    "exp.repeats": {"en": "Repeats", "zh": "重复次数"},
    "exp.concurrency": {"en": "Concurrency", "zh": "并发数"},
    "exp.judge_model": {"en": "Judge model (optional)", "zh": "评审模型（可选）"},
    "exp.judge_model_help": {
        "en": "Grades the dataset's judge checks, on the sidebar's endpoint. Empty: $SPARROW_JUDGE_MODEL, if set.",
        "zh": "为数据集的 judge 检查评分，使用侧边栏的接口地址。留空：使用 $SPARROW_JUDGE_MODEL（如已设置）。",
    },
    "exp.name": {"en": "Name", "zh": "名称"},
    "exp.start": {"en": "Start", "zh": "开始"},
    "exp.stop": {"en": "Stop", "zh": "停止"},
    "exp.resume": {"en": "Resume", "zh": "继续"},
    "exp.running": {"en": "Running: {line}", "zh": "运行中：{line}"},
    "exp.finished": {"en": "Finished: {line}", "zh": "已完成：{line}"},
    "exp.no_datasets": {"en": "Import a dataset first.", "zh": "请先导入数据集。"},
    "exp.import_title": {"en": "Import a dataset", "zh": "导入数据集"},
    "exp.import_file": {"en": "JSONL, CSV or YAML file", "zh": "JSONL、CSV 或 YAML 文件"},
    "exp.import_button": {"en": "Import", "zh": "导入"},
    "exp.imported": {"en": "Imported {label}.", "zh": "已导入 {label}。"},
    "exp.need_problem": {"en": "Nothing was imported:", "zh": "未导入任何内容："},
    "exp.add_to_dataset": {"en": "Add to dataset", "zh": "加入数据集"},
    "exp.add_help": {
        "en": "Keep this question, with this answer as the expected one, as an item of a dataset.",
        "zh": "将此问题及其回答（作为期望答案）保存为数据集中的一个条目。",
    },
    "exp.add_dataset": {"en": "Dataset (a new name makes a new one)", "zh": "数据集（输入新名称则新建）"},
    "exp.add_question": {"en": "Question", "zh": "问题"},
    "exp.add_expected": {"en": "Expected answer", "zh": "期望答案"},
    "exp.add_check": {"en": "Check", "zh": "检查方式"},
    "exp.add_save": {"en": "Add", "zh": "加入"},
    "exp.add_saved": {"en": "Added to {label}.", "zh": "已加入 {label}。"},
    "col.config": {"en": "Configuration", "zh": "配置"},
    "col.pass_rate": {"en": "Pass rate", "zh": "通过率"},
    "col.interval": {"en": "95% interval", "zh": "95% 区间"},
    "exp.judge": {
        "en": "Judge model (grades the judge checks): `{model}` · endpoint `{url}`",
        "zh": "评审模型（为 judge 检查评分）：`{model}` · 端点 `{url}`",
    },
    "sessions.experiment_runs": {
        "en": "Show the {count} sessions experiments ran their items in",
        "zh": "显示实验运行条目所用的 {count} 个会话",
    },
    "col.consistency": {"en": "Consistency", "zh": "一致性"},
    "col.score": {"en": "Mean score", "zh": "平均得分"},
    "col.cost": {"en": "Cost", "zh": "费用"},
    "col.cost_item": {"en": "Cost / item", "zh": "每条费用"},
    "col.p50": {"en": "p50 latency", "zh": "p50 耗时"},
    "col.p95": {"en": "p95 latency", "zh": "p95 耗时"},
    "col.tokens": {"en": "Tokens", "zh": "Token"},
    "col.steps": {"en": "Mean steps", "zh": "平均步数"},
    "col.failures": {"en": "Failures", "zh": "失败原因"},
    "col.item": {"en": "Item", "zh": "条目"},
    "col.question": {"en": "Question", "zh": "问题"},
    "col.kind": {"en": "Change", "zh": "变化"},
    "col.reason": {"en": "Reason", "zh": "原因"},
    "col.compare": {"en": "Compare", "zh": "对比"},
    "col.trace": {"en": "Trace", "zh": "追踪"},
    "exp.all_changes": {"en": "All {count} changes as a table", "zh": "全部 {count} 项变化（表格）"},
    "col.status": {"en": "Status", "zh": "状态"},
    "col.created": {"en": "Created", "zh": "创建时间"},
    "kind.regression": {"en": "regression", "zh": "退步"},
    "kind.fix": {"en": "fix", "zh": "改进"},
}


def te(key: str, **values: object) -> str:
    """The string for ``key`` in the chosen language, formatted with ``values``."""
    entry = STRINGS.get(key)
    if entry is None:
        return key
    text = entry.get(lang()) or entry["en"]
    return text.format(**{k: neutralize(v) if isinstance(v, str) else v for k, v in values.items()}) if values else text
