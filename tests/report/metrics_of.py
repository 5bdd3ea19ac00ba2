"""The figures the Traces page shows for a run, as the HTML report must show them."""

from __future__ import annotations

from agent_core.formatting import format_cost, format_duration, format_token_flow
from agent_core.views.metrics import RunMetrics


def traces_figures(m: RunMetrics) -> dict[str, str]:
    """Steps, tokens (prompt → completion), cost and duration, formatted as the Traces page's run summary."""
    u = m.usage
    return {
        "steps": str(m.steps),
        "tokens": format_token_flow(u.prompt_tokens, u.completion_tokens, estimated=u.estimated),
        "cost": format_cost(m.cost, estimated=u.estimated),
        "duration": format_duration(m.duration_ms),
    }
