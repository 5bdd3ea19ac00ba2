"""The cached and reasoning token counts of a usage as OpenTelemetry GenAI attributes."""

from __future__ import annotations

from agent_core.events import Usage


def usage_details(usage: Usage) -> dict[str, int | None]:
    """``gen_ai.usage.cache_read.input_tokens`` and ``gen_ai.usage.reasoning.output_tokens``; None when not given."""
    return {
        "gen_ai.usage.cache_read.input_tokens": usage.cached_tokens or None,
        "gen_ai.usage.reasoning.output_tokens": usage.reasoning_tokens or None,
    }
