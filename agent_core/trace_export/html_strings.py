"""The words of the HTML report, in English and Chinese (``--lang en|zh``)."""

from __future__ import annotations

from agent_core.views import LANGS, ReportLang

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
