"""UI strings of cached/reasoning tokens and attachments (merged into ``i18n.STRINGS``)."""

STRINGS: dict[str, dict[str, str]] = {
    "unit.cached": {"en": "cached", "zh": "缓存"},
    "unit.reasoning": {"en": "reasoning", "zh": "推理"},
    "traces.col.cached": {"en": "Cached tokens", "zh": "缓存 token"},
    "traces.col.reasoning": {"en": "Reasoning tokens", "zh": "推理 token"},
}
