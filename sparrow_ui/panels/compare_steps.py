"""The step-aligned diff of the Compare page: each pair of steps side by side, what changed marked as text.

Every pair says ``same``, ``changed``, ``added`` or ``removed``; the first divergence stands out; texts that
differ show the words taken out (left, red) and put in (right, green). Steps a fork copied say so, and so
does a tool result the fork reused. All run text is escaped (``literal``): none of it is read as markdown.
"""

from __future__ import annotations

import streamlit as st

from agent_core.formatting import format_cost, format_duration, format_tokens
from agent_core.models.pricing import PriceTable
from agent_core.views.compare import Comparison, FieldDiff, StepPair
from agent_core.views.turns import StepView, TurnView
from sparrow_ui.elements.literal import literal
from sparrow_ui.translations.strings_whatif import tw

_BADGE = {"same": ":green-badge[= {}]", "changed": ":orange-badge[≠ {}]", "added": ":blue-badge[+ {}]"}
_BADGE["removed"] = ":red-badge[− {}]"


def summary(comparison: Comparison) -> None:
    """The summary line and where the runs first part ways."""
    st.markdown(f"**{literal(tw('diff.summary', summary=comparison.summary()))}**")
    first = comparison.first_divergence
    if first is None:
        st.caption(tw("diff.no_divergence"))
        return
    pair = comparison.steps[first]
    left, right = (pair.left.number if pair.left else "—"), (pair.right.number if pair.right else "—")
    st.caption(f":orange[:material/call_split: {tw('diff.first', left=left, right=right)}]")


def steps(comparison: Comparison) -> None:
    """Every aligned pair of steps in two columns."""
    first = comparison.first_divergence
    for index, pair in enumerate(comparison.steps):
        left, right = st.columns(2, gap="medium")
        with left.container(border=True, key=f"diff_step_{index}_left"):
            _side(pair, pair.left, comparison.left, comparison.prices, "left", index == first)
        with right.container(border=True, key=f"diff_step_{index}_right"):
            _side(pair, pair.right, comparison.right, comparison.prices, "right", index == first)


def _side(pair: StepPair, step: StepView | None, turn: TurnView, prices: PriceTable, side: str, first: bool) -> None:
    badge = _BADGE[pair.status].format(tw(f"diff.status.{pair.status}"))
    marker = f" :orange-background[:material/call_split: {tw('diff.first_badge')}]" if first else ""
    if step is None:
        st.markdown(f"{badge}{marker}")
        st.caption(tw("diff.no_step"))
        return
    st.markdown(f"{badge} **{literal(f'Step {step.number}')}**{marker}")
    st.caption(_figures(step, prices))
    provenance(step, turn)
    for diff in pair.fields:
        _field(diff, side, step)


def _figures(step: StepView, prices: PriceTable) -> str:
    usage, cost = step.usage, step.cost(prices)
    parts = [format_tokens(usage.total_tokens, estimated=usage.estimated) + " tokens"]
    if cost is not None:
        parts.append(format_cost(cost, estimated=usage.estimated))
    parts.append(format_duration(step.latency_ms + step.tool_ms))
    return literal(" · ".join(parts))


def provenance(step: StepView, turn: TurnView) -> None:
    """Copied from the original, edited here, or a tool result reused (with a link to the original's session)."""
    forked = turn.forked
    if forked is not None and step.number < forked.at_step:
        st.caption(f":material/content_copy: {tw('diff.copied')}")
    elif forked is not None and step.number == forked.at_step and forked.edit.get("kind") != "settings":
        st.caption(f":violet[:material/edit: {tw('diff.edited', what=literal(str(forked.edit.get('kind'))))}]")
    for action in step.actions:
        reused = action.finished.reused_from if action.finished is not None else None
        if reused:
            text = tw("diff.reused", tool=literal(action.tool), step=reused.get("step"))
            session = str(reused.get("session", ""))
            link = f" · [{tw('branches.open')}](/traces?session={session})" if session.isidentifier() else ""
            st.caption(f":material/history: {text}{link}")


def _field(diff: FieldDiff, side: str, step: StepView) -> None:
    text = diff.left if side == "left" else diff.right
    if not text:
        return
    label = tw(f"diff.field.{diff.name}")
    if diff.name == "error":
        for action in step.actions:
            if action.error:
                st.error(tw("diff.tool_error", tool=literal(action.tool), error=literal(action.error)))
        if step.model_error or step.format_error:
            st.error(literal(step.model_error or step.format_error or ""))
        return
    mark = " :orange[≠]" if diff.differs else ""
    st.markdown(f"**{label}**{mark}")
    if not diff.differs:
        st.text(text)
        return
    kept = "delete" if side == "left" else "insert"
    colour = "red" if side == "left" else "green"
    shown = "".join(
        f":{colour}-background[{literal(piece)}]" if tag == kept and piece.strip() else literal(piece)
        for tag, piece in diff.pieces()
        if tag in ("equal", kept)
    )
    st.markdown(shown)
