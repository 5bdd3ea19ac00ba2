"""The step chips and the sidebar control of repeated calls (the engine's ``repeat_policy``)."""

from __future__ import annotations

from agent_core.engine.repeats import REPEAT_POLICIES
from agent_core.engine.state import RunState
from sparrow_ui.elements.widgets import translated_selectbox
from sparrow_ui.shell import settings
from sparrow_ui.translations.i18n import t


def repeat_chips(turn: RunState, index: int) -> list[tuple[str, str]]:
    """(text, colour) of the chips for what the engine did about repeated calls in step ``index``."""
    step = turn.steps[index]
    chips = [
        (t("chip.repeat_ran" if a.repeated.ran else "chip.repeat_not_run", n=a.repeated.first_step), "violet")
        for a in step.actions
        if a.repeated is not None
    ]
    if step.answer_requested is not None:
        chips.append((t("chip.answer_requested", n=step.answer_requested.repeats), "orange"))
    if index == len(turn.steps) - 1 and turn.status == "repeated":
        chips.append((t("chip.repeat_stopped"), "red"))
    return chips


def repeat_policy_control() -> None:
    """The sidebar's choice of what a repeated call gets."""
    chosen = translated_selectbox(
        t("agent.repeat_policy"),
        REPEAT_POLICIES,
        key="cfg_repeat_policy",
        default="redirect",
        format_func=lambda p: t(f"agent.repeat_policy.{p}"),
    )
    if chosen != settings.get("cfg_repeat_policy"):
        settings.put("cfg_repeat_policy", chosen)
