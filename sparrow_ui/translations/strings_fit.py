"""UI strings of cached/reasoning tokens and attachments (merged into ``i18n.STRINGS``)."""

STRINGS: dict[str, dict[str, str]] = {
    "unit.cached": {"en": "cached", "zh": "缓存"},
    "unit.reasoning": {"en": "reasoning", "zh": "推理"},
    "traces.col.cached": {"en": "Cached tokens", "zh": "缓存 token"},
    "traces.col.reasoning": {"en": "Reasoning tokens", "zh": "推理 token"},
    "attach.refused": {"en": "Not sent: {reason}", "zh": "未发送：{reason}"},
    "attach.default_question": {"en": "Please look at the attached files.", "zh": "请看附件。"},
    "attach.files": {"en": "Attached: {names}", "zh": "附件：{names}"},
    "prices.ignored": {
        "en": "{problem}. Costs use the catalogue's list prices until it is fixed.",
        "zh": "{problem}。修正之前，费用按价目表的标价计算。",
    },
}
