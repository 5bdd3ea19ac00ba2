"""UI strings of repeated calls (the engine's repeat guard): the sidebar control and the step chips."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "agent.repeat_policy": {"en": "Repeated calls", "zh": "重复调用"},
    "agent.repeat_policy.redirect": {"en": "answer from the record", "zh": "用已有结果回复"},
    "agent.repeat_policy.allow": {"en": "run them again", "zh": "再次执行"},
    "agent.repeat_policy.stop": {"en": "stop the run", "zh": "停止运行"},
    "agent.repeat_policy_help": {
        "en": "When the model asks for exactly a call it already made: repeat the earlier result and ask for the "
        "answer (then allow only a final answer), run it again, or end the run. Tools such as the clock and web "
        "search are always run again.",
        "zh": "当模型请求与之前完全相同的调用时：重复之前的结果并要求给出答案（之后只允许最终回答）、再次执行，"
        "或结束运行。时钟、网页搜索等工具总会再次执行。",
    },
    "chip.repeat_not_run": {"en": "repeat of step {n}, not run again", "zh": "重复第 {n} 步，未再次执行"},
    "chip.repeat_ran": {"en": "repeat of step {n}, run again", "zh": "重复第 {n} 步，已再次执行"},
    "chip.answer_requested": {"en": "answer requested after {n} repeats", "zh": "重复 {n} 次后要求回答"},
    "chip.repeat_stopped": {"en": "stopped: repeated call", "zh": "已停止：重复调用"},
    "status.repeated": {"en": "repeated the same call", "zh": "重复相同调用"},
}
