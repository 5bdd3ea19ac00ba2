"""What if, on a step: "Edit and continue from here" (a fork that runs in the background) and "Re-sample ×K".

The fork's branch runs like any run of the app (a background thread, approvals asked as usual), and the
Compare page opens with the original on the left and the branch streaming in on the right. Re-samples are
recorded on the step and drawn as a small chart of what the model would do next; each outcome is one click
from a branch of its own.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Callable
from typing import Any

import altair as alt
import streamlit as st

from agent_core.engine.agent import Agent
from agent_core.engine.protocols import PROTOCOLS
from agent_core.engine.run_context import AgentSettings
from agent_core.engine.state import RunState, StepState, canonical_arguments
from agent_core.events import Usage
from agent_core.formatting import format_cost, format_tokens
from agent_core.longterm.guard import MemoryRefused
from agent_core.longterm.memory import MemoryStore
from agent_core.longterm.tools import bind_memory_tools
from agent_core.models import ModelError
from agent_core.runtime.branches import edit_from_sample, outcome, resample_step, spread
from agent_core.runtime.fork import EditKind, StepEdit, prepare_fork, start_fork
from agent_core.runtime.run_settings import RunSettings
from agent_core.store import SessionStore
from agent_core.tools import Tool
from sparrow_ui.access.auth import read_only
from sparrow_ui.elements.literal import literal
from sparrow_ui.elements.widgets import translated_radio
from sparrow_ui.panels.compare_steps import provenance
from sparrow_ui.panels.compare_view import protocol_name, same_tools, turn_ref
from sparrow_ui.shell.session_view import prices
from sparrow_ui.shell.state import ModelConfig, available_tools, live_runs
from sparrow_ui.translations.strings_whatif import tw

KINDS = ("observation", "action", "thought", "answer", "settings")


def step_controls(store: SessionStore, config: ModelConfig, session_id: str, turn: RunState, step: StepState) -> None:
    """Where a fork's step came from, and the two what-if controls of a finished step (not in a shared view)."""
    provenance(step, turn)
    if read_only() or not turn.finished or step.thinking:
        return
    key = f"whatif_{turn.run_id}_{step.number}"
    edit, sample = st.columns(2)
    with edit.popover(tw("whatif.edit"), icon=":material/call_split:", width="stretch"):
        edit_form(store, config, session_id, turn, step, key)
    with sample.popover(tw("resample.button"), icon=":material/casino:", width="stretch"):
        resample_panel(store, config, session_id, turn, step, key)


def controls_for(
    store: SessionStore, config: ModelConfig, session_id: str | None, turn: RunState | None
) -> Callable[[StepState], None] | None:
    """The Chat trace column's hook: each finished step of ``turn`` gets its what-if controls."""
    if session_id is None or turn is None or not turn.finished:
        return None
    return lambda step: step_controls(store, config, session_id, turn, step)


def _kinds(step: StepState) -> list[EditKind]:
    kinds: list[EditKind] = ["observation"] if step.actions else []
    kinds.append("action")
    if step.thought and not step.format_error:
        kinds.append("thought")
    return [*kinds, "answer", "settings"]


def edit_form(
    store: SessionStore, config: ModelConfig, session_id: str, turn: RunState, step: StepState, key: str
) -> None:
    """What to change at this step, the settings from here on, and Continue."""
    st.caption(tw("whatif.edit_help"))
    kinds = _kinds(step)
    kind: EditKind = translated_radio(
        tw("whatif.what"), kinds, key=f"{key}_kind", default=kinds[0], format_func=lambda k: tw(f"whatif.kind.{k}")
    )
    edit = _edit_fields(kind, step, key)
    branch = _settings_fields(config, turn, key)
    if not config.configured:
        st.caption(tw("whatif.needs_model"))
    if st.button(tw("whatif.go"), type="primary", key=f"{key}_go", disabled=not config.configured or edit is None):
        assert edit is not None
        continue_branch(store, config, session_id, turn, step.number, edit, branch)


def _edit_fields(kind: EditKind, step: StepState, key: str) -> StepEdit | None:
    """The inputs of one kind of edit, prefilled with what was recorded; None while they are not valid."""
    if kind == "observation":
        actions = {a.call_id: a for a in step.actions}
        call_id = next(iter(actions))
        if len(actions) > 1:
            label: Callable[[str], str] = lambda c: f"{actions[c].tool} ({c})"  # noqa: E731
            call_id = st.selectbox(tw("whatif.call"), list(actions), format_func=label, key=f"{key}_call")
        text = st.text_area(tw("whatif.text"), value=actions[call_id].output or "", key=f"{key}_obs_{call_id}")
        return StepEdit("observation", text=text, call_id=call_id)
    if kind == "action":
        names = sorted(available_tools())
        first = step.actions[0] if step.actions else None
        index = names.index(first.tool) if first is not None and first.tool in names else 0
        tool = st.selectbox(tw("whatif.tool"), names, index=index, key=f"{key}_tool")
        raw = st.text_area(tw("whatif.arguments"), value=canonical_arguments(first.arguments if first else {}),
                           key=f"{key}_args")  # fmt: skip
        try:
            arguments = json.loads(raw)
            if not isinstance(arguments, dict):
                raise ValueError("not an object")
        except ValueError as exc:
            st.error(tw("whatif.bad_json", error=str(exc)))
            return None
        return StepEdit("action", tool=tool, arguments=arguments, call_id=first.call_id if first else None)
    if kind in ("thought", "answer"):
        value = step.thought if kind == "thought" else (step.final_answer or "")
        return StepEdit(kind, text=st.text_area(tw("whatif.text"), value=value, key=f"{key}_{kind}"))
    return StepEdit()


@dataclasses.dataclass(frozen=True)
class Branch:
    """What the branch runs with from the fork point on: the app's one settings shape, extra instructions, reuse."""

    run: RunSettings
    """Model, endpoint, protocol, tools and the agent's settings (the run's own, as recorded, with the changes)."""
    instructions: str = ""
    """Extra instructions for the system prompt ("": none)."""
    reuse: bool = True
    """Reuse the original's recorded tool results for the same calls."""


def _settings_fields(config: ModelConfig, turn: RunState, key: str) -> Branch:
    st.markdown(f"**{tw('whatif.settings')}**")
    recorded = default_branch(config, turn).run
    model = st.text_input(tw("whatif.model"), value=recorded.model, key=f"{key}_model", max_chars=200)
    base_url = st.text_input(tw("whatif.base_url"), value="", key=f"{key}_base", max_chars=500)
    protocol = translated_radio(
        tw("whatif.protocol"),
        list(PROTOCOLS),
        key=f"{key}_protocol",
        default=recorded.protocol,
        format_func=protocol_name,
        horizontal=True,
    )
    before = recorded.agent.temperature
    start = before if before is not None and 0 <= before <= 1.5 else (config.run.agent.temperature or 0.0)
    temperature = st.slider(tw("whatif.temperature"), 0.0, 1.5, start, 0.1, key=f"{key}_temperature")
    instructions = st.text_input(tw("whatif.instructions"), value="", key=f"{key}_instructions", max_chars=500)
    steps = min(recorded.agent.max_steps, 50)
    max_steps = int(st.number_input(tw("whatif.max_steps"), 1, 50, steps, key=f"{key}_max"))
    tools = st.multiselect(tw("whatif.tools"), sorted(available_tools()), default=recorded.tools, key=f"{key}_tools")
    reuse = st.checkbox(tw("whatif.reuse"), value=True, help=tw("whatif.reuse_help"), key=f"{key}_reuse")
    changes = {"model": model, "base_url": base_url, "protocol": protocol, "tools": tuple(tools)}
    run = recorded.changed(**changes, temperature=temperature, max_steps=max_steps)
    return Branch(run, instructions, reuse)


def continue_branch(
    store: SessionStore,
    config: ModelConfig,
    session_id: str,
    turn: RunState,
    step: int,
    edit: StepEdit,
    branch: Branch | None = None,
) -> None:
    """Fork at ``step`` with ``edit``, run the branch in the background, and open Compare on the two."""
    branch = branch or default_branch(config, turn)
    try:
        agent = branch_agent(store, config, turn, branch)
        prepared = prepare_fork(store, session_id, turn.run_id, step, agent, edit=edit, reuse=branch.reuse)
    except (ModelError, KeyError, ValueError) as exc:
        st.error(str(exc).strip("'\""))
        return
    live_runs().start(
        prepared.session.id,
        lambda cancel: start_fork(store, prepared, agent, cancel=cancel),
        run_id=prepared.run_id,
        approvals=agent.approvals,
    )
    right = turn_ref(prepared.session.id, prepared.run_id)
    st.switch_page("pages/compare.py", query_params={"left": turn_ref(session_id, turn.run_id), "right": right})


def default_branch(config: ModelConfig, turn: RunState) -> Branch:
    """The run's own settings, as recorded (a branch from a re-sample changes only the step's decision)."""
    started = turn.run_started
    return Branch(
        RunSettings(
            provider=config.run.provider,
            model=turn.model or config.run.model,
            protocol=turn.protocol if turn.protocol in PROTOCOLS else config.run.protocol,
            tools=tuple(t.name for t in same_tools(turn)),
            agent=AgentSettings.from_record(started.settings if started else {}),
        )
    )


def branch_agent(store: SessionStore, config: ModelConfig, turn: RunState, branch: Branch) -> Agent:
    """The agent of a branch: its settings, the chosen tools, memory bound; the model through the app's policy."""
    model = config.with_model(branch.run.model, branch.run.base_url).chat_model()
    known = available_tools()
    tools: list[Tool] = [known[name] for name in branch.run.tools or () if name in known]
    with contextlib.suppress(MemoryRefused):  # an invalid memory scope leaves them unbound: they say so when called
        tools = bind_memory_tools(tools, MemoryStore(store.engine, actor=store.actor), session_id=None)
    settings = branch.run.agent
    return Agent(
        model, tools, protocol=branch.run.protocol, settings=settings, instructions=branch.instructions or None
    )


def resample_panel(
    store: SessionStore, config: ModelConfig, session_id: str, turn: RunState, step: StepState, key: str
) -> None:
    """K samples of the step (recorded on it), their spread as a chart, and a branch from any outcome."""
    st.caption(tw("resample.help"))
    k = int(st.number_input(tw("resample.k"), 1, 20, 5, key=f"{key}_k"))
    recorded = turn.run_started.settings.get("temperature") if turn.run_started else None
    start = float(recorded) if isinstance(recorded, (int, float)) and 0 <= recorded <= 1.5 else 0.7
    temperature = st.slider(tw("whatif.temperature"), 0.0, 1.5, start, 0.1, key=f"{key}_sample_temperature")
    names = st.text_input(tw("resample.models"), value="", key=f"{key}_models", max_chars=500)
    if st.button(tw("resample.go"), key=f"{key}_sample", disabled=not config.configured):
        models = [m.strip() for m in names.split(",") if m.strip()] or [turn.model or config.run.model]
        try:
            chats = [config.with_model(name).chat_model() for name in models]
            resample_step(store, session_id, turn.run_id, step.number, chats, k, tools=same_tools(turn),
                          temperature=temperature)  # fmt: skip
        except (ModelError, ValueError, KeyError) as exc:
            st.error(str(exc))
            return
        st.rerun()
    if step.samples:
        spread_chart(step, key)
        for index, (label, count) in enumerate(spread(step.samples)):
            sample = next(s for s in step.samples if outcome(s) == label)
            try:
                edit = edit_from_sample(sample)
            except ValueError:
                continue
            if st.button(f"{tw('resample.branch', count=count)}: {literal(label[:60])}", key=f"{key}_branch_{index}"):
                continue_branch(store, config, session_id, turn, step.number, edit)


def spread_chart(step: StepState, key: str) -> None:
    """A bar per outcome of the step's re-samples (the action with its arguments, or the answer)."""
    rows: list[dict[str, Any]] = [{"outcome": label[:80], "count": n} for label, n in spread(step.samples)]
    st.markdown(f"**{tw('resample.chart', n=len(step.samples))}**")
    chart = (
        alt.Chart(alt.Data(values=rows))
        .mark_bar()
        .encode(
            x=alt.X("count:Q", title=tw("resample.count"), axis=alt.Axis(tickMinStep=1)),
            y=alt.Y("outcome:N", title=tw("resample.outcome"), sort="-x"),
            tooltip=["outcome:N", "count:Q"],
        )
        .properties(height=max(60, 28 * len(rows)))
    )
    st.altair_chart(chart, width="stretch", key=f"{key}_chart")
    _sample_costs(step)


def _sample_costs(step: StepState) -> None:
    """What the samples cost, like any model call: their tokens and, when priced, dollars."""
    usage = sum((s.usage for s in step.samples), Usage())
    cost = [prices().for_run(s).cost(s.usage, s.model, s.ts) for s in step.samples]  # each at its own endpoint
    shown = format_cost(sum(c for c in cost if c is not None), estimated=usage.estimated) if None not in cost else "—"
    st.caption(f"{format_tokens(usage.total_tokens, estimated=usage.estimated)} tokens · {shown}")
