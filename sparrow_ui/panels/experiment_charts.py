"""Altair charts of an experiment: pass rate by configuration with its 95% interval; cost against pass rate."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from agent_core.experiments.results import ConfigSummary
from sparrow_ui.translations.strings_experiments import te


def _records(summaries: Sequence[ConfigSummary]) -> pd.DataFrame:
    rows = []
    for s in summaries:
        low, high = s.interval or (0.0, 0.0)
        rows.append(
            {
                "config": s.label,
                "pass_rate": s.pass_rate or 0.0,
                "low": low,
                "high": high,
                "cost": s.cost_per_item if s.cost_per_item is not None else 0.0,
                "priced": s.cost is not None,
            }
        )
    return pd.DataFrame(rows)


def pass_rate_chart(summaries: Sequence[ConfigSummary]) -> alt.LayerChart | alt.FacetChart:
    """Bars of the pass rate per configuration, with the Wilson interval as an error bar."""
    data = _records(summaries)
    base = alt.Chart(data).encode(y=alt.Y("config:N", title=te("col.config"), sort=None))
    axis = alt.Axis(format="%")
    bars = base.mark_bar(color="#2563EB").encode(
        x=alt.X("pass_rate:Q", title=te("col.pass_rate"), scale=alt.Scale(domain=[0, 1]), axis=axis),
        tooltip=[
            alt.Tooltip("config:N", title=te("col.config")),
            alt.Tooltip("pass_rate:Q", title=te("col.pass_rate"), format=".0%"),
            alt.Tooltip("low:Q", title="95% low", format=".0%"),
            alt.Tooltip("high:Q", title="95% high", format=".0%"),
        ],
    )
    interval = base.mark_rule(color="#111827", strokeWidth=2).encode(x="low:Q", x2="high:Q")
    return alt.layer(bars, interval).properties(height=max(80, 40 * len(data)))


def cost_chart(summaries: Sequence[ConfigSummary]) -> alt.Chart:
    """Each configuration as a point: cost per item against pass rate (unpriced models sit at $0, hollow)."""
    data = _records(summaries)
    return (
        alt.Chart(data)
        .mark_point(size=120, filled=True)
        .encode(
            x=alt.X("cost:Q", title=te("col.cost_item") + " ($)"),
            y=alt.Y(
                "pass_rate:Q", title=te("col.pass_rate"), scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%")
            ),
            color=alt.Color("config:N", title=te("col.config")),
            shape=alt.Shape("priced:N", title="priced"),
            tooltip=[
                alt.Tooltip("config:N"),
                alt.Tooltip("cost:Q", format="$.5f"),
                alt.Tooltip("pass_rate:Q", format=".0%"),
            ],
        )
        .properties(height=240)
    )
