"""Replay a saved run, or a whole session, in the chat and trace components of the live view, without a model.

A replay moves through *frames*: each shows a prefix of the stored events, folded by the same
``Transcript`` and drawn by the same ``render`` functions as a live run. A frame starts at each question,
each step (and its model reply) and each batch of observations. Deltas are not stored, so on the way into a
frame that reveals a model reply, the reply is streamed again from ``ModelFinished.text`` as synthetic
``ModelDelta`` events: the replay looks like the live view.

Controls (restart, previous, play/pause, next, end, speed) keep a cursor in ``st.session_state``; a click
reruns the page (cheap: the session view is cached and only the open tab is drawn). Playing is a loop in
that run, which the next click interrupts, as the Chat page does while a run streams. The player is not an
``st.fragment``: during a fragment run the browser draws a running ``st.status`` with a check mark instead
of a spinner, so a streamed step would look finished.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from agent_core.events import Event, ModelDelta, ModelFinished, RunResumed, RunStarted, StepStarted, ToolFinished
from agent_core.guards.untrusted import neutralize
from agent_core.models.pricing import PriceTable
from agent_core.views.metrics import RunMetrics, turn_metrics
from agent_core.views.transcript import Transcript
from sparrow_ui.chat.conversation import conversation, trace_panel
from sparrow_ui.shell.presentation_link import presentation_button
from sparrow_ui.translations.i18n import t

SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0)
FRAME_PAUSE_S = 1.2
"""Time between frames while playing, at 1×."""
WORD_S = 0.05
"""Time per streamed word, at 1×."""
MAX_STREAM_S = 4.0
"""A long reply streams in this long at most, at 1×."""
MAX_STREAM_UPDATES = 40
"""Redraws per streamed reply at most (words are grouped beyond that)."""
PLAY_WIDTH = 120
"""Play and Pause share one width (px), so switching between them does not move the buttons beside them."""
STATE_KEY = "replay_state"
SPEED_KEY = "replay_speed"
_WORDS = re.compile(r"\S+\s*|\s+")


@dataclass(frozen=True)
class Frame:
    """One stop of a replay: the events it shows, and the model reply it reveals (streamed on the way in)."""

    start: int
    """``events[start:end]`` are new in this frame."""
    end: int
    """``events[:end]`` are shown."""
    reply: int | None = None
    """Index of the ModelFinished this frame reveals, if any: the text streams in from ``events[:reply]``."""


def replay_events(events: Sequence[Event]) -> list[Event]:
    """The events a replay walks through: all but stored deltas (replies are streamed again from their text)."""
    return [e for e in events if not isinstance(e, ModelDelta)]


def _starts_frame(events: Sequence[Event], index: int) -> bool:
    """A new frame at each question, each step (or resume, with its step) and each batch of observations."""
    event, before = events[index], events[index - 1]
    if isinstance(event, (RunStarted, RunResumed)):
        return True
    if isinstance(event, StepStarted):
        return not isinstance(before, RunResumed)
    return isinstance(event, ToolFinished) and not isinstance(before, ToolFinished)


def frames(events: Sequence[Event]) -> list[Frame]:
    """The frames of a replay over ``events`` (without deltas), in order."""
    bounds = [0, *(i for i in range(1, len(events)) if _starts_frame(events, i)), len(events)]
    result = []
    for start, end in itertools.pairwise(bounds):
        reply = next((i for i in range(start, end) if isinstance(events[i], ModelFinished)), None)
        result.append(Frame(start, end, reply))
    return result


def frame_caption(events: Sequence[Event], frame: Frame) -> str:
    """What a frame shows, in a few words: the question, a step's reply or answer, its observations."""
    first = events[frame.start]
    if isinstance(first, RunStarted):
        return t("traces.replay.question")
    if isinstance(first, ToolFinished):
        tools = [e.tool for e in events[frame.start : frame.end] if isinstance(e, ToolFinished)]
        return f"{t('trace.step', n=first.step)} · {t('trace.observation')} ({', '.join(tools)})"
    reply = events[frame.reply] if frame.reply is not None else None
    if not isinstance(reply, ModelFinished):  # interrupted before the model replied
        if isinstance(first, RunResumed):
            return t("traces.replay.resumed")
        return t("trace.step", n=first.step) if isinstance(first, StepStarted) else ""
    what = t("trace.answer") if reply.final_answer is not None else t("traces.replay.reply")
    if reply.error or reply.format_error:
        what = t("traces.kind.error")
    return f"{t('trace.step', n=reply.step)} · {what}"


def stream_deltas(reply: ModelFinished) -> list[ModelDelta]:
    """The reply as the deltas a streaming model would have sent: reasoning, then text, a few words at a time."""
    pieces = [("reasoning", w) for w in _WORDS.findall(reply.reasoning)] + [
        ("text", w) for w in _WORDS.findall(reply.text)
    ]
    size = max(1, -(-len(pieces) // MAX_STREAM_UPDATES))
    deltas = []
    for index in range(0, len(pieces), size):
        group = pieces[index : index + size]
        for channel in ("reasoning", "text"):
            text = "".join(w for c, w in group if c == channel)
            if text:
                deltas.append(ModelDelta(run_id=reply.run_id, ts=reply.ts, step=reply.step, text=text, channel=channel))
    return deltas


def stream_seconds(reply: ModelFinished, speed: float) -> float:
    """How long streaming a reply takes at ``speed``."""
    words = len(_WORDS.findall(reply.reasoning)) + len(_WORDS.findall(reply.text))
    return min(words * WORD_S, MAX_STREAM_S) / speed


# ── state and controls ───────────────────────────────────────────────────────────────────────────


def cursor(replay_id: str, count: int) -> dict[str, Any]:
    """This tab's cursor for the replay ``replay_id`` (a new replay starts at its first frame)."""
    state = st.session_state.get(STATE_KEY)
    if not isinstance(state, dict) or state.get("id") != replay_id:
        state = {"id": replay_id, "cursor": 0, "playing": False, "animate": False}
        st.session_state[STATE_KEY] = state
    state.update(count=count, cursor=min(state["cursor"], count - 1))
    return state


def go(by: int = 0, *, to: int | None = None) -> None:
    """Pause and move the cursor ``by`` frames, or to frame ``to`` (-1: the last); one frame on streams it in.

    The callbacks read the state when clicked, not when drawn, so quick clicks each count.
    """
    state = st.session_state[STATE_KEY]
    last = state["count"] - 1
    target = max(0, min(last, (last if to == -1 else to) if to is not None else state["cursor"] + by))
    state.update(animate=target == state["cursor"] + 1, cursor=target, playing=False)


def _play() -> None:
    """Play from here (from the start when at the end)."""
    state = st.session_state[STATE_KEY]
    if state["cursor"] >= state["count"] - 1:
        state["cursor"] = 0
    state.update(playing=True, animate=False)


def _pause() -> None:
    """Stop playing (the current frame stays)."""
    st.session_state[STATE_KEY]["playing"] = False


def position(events: Sequence[Event], frame: Frame) -> tuple[str, int] | None:
    """Where a replay is at ``frame``: the run of the last event shown, and how many of that run's events are shown."""
    shown = events[: frame.end]
    if not shown:
        return None
    run_id = shown[-1].run_id
    return run_id, sum(1 for e in shown if e.run_id == run_id)


def controls(state: dict[str, Any], at: tuple[str, int] | None = None) -> float:
    """Restart, previous, play/pause, next, end and speed; returns the speed (``at``: the replay's position)."""
    row = st.container(horizontal=True, vertical_alignment="center")
    _back_buttons(row, at_start=state["cursor"] == 0)
    if state["playing"]:
        row.button(
            t("traces.replay.pause"),
            icon=":material/pause:",
            key="replay_pause",
            type="primary",
            on_click=_pause,
            width=PLAY_WIDTH,
        )
    else:
        row.button(
            t("traces.replay.play"),
            icon=":material/play_arrow:",
            key="replay_play",
            type="primary",
            on_click=_play,
            disabled=state["count"] < 2,
            width=PLAY_WIDTH,
        )
    _forward_buttons(row, at_end=state["cursor"] >= state["count"] - 1)
    speed = _speed(row)
    presentation_button(row, at)
    return speed


def _back_buttons(row: DeltaGenerator, *, at_start: bool) -> None:
    """To the first frame, and one frame back."""
    start = t("traces.replay.restart")
    row.button(
        "",
        icon=":material/first_page:",
        key="replay_restart",
        help=start,
        on_click=go,
        kwargs={"to": 0},
        disabled=at_start,
    )
    row.button(
        t("traces.replay.previous"),
        icon=":material/skip_previous:",
        key="replay_previous",
        on_click=go,
        args=(-1,),
        disabled=at_start,
    )


def _forward_buttons(row: DeltaGenerator, *, at_end: bool) -> None:
    """One frame on, and to the last frame."""
    row.button(
        t("traces.replay.next"),
        icon=":material/skip_next:",
        key="replay_next",
        on_click=go,
        args=(1,),
        disabled=at_end,
    )
    end = t("traces.replay.end")
    row.button(
        "", icon=":material/last_page:", key="replay_end", help=end, on_click=go, kwargs={"to": -1}, disabled=at_end
    )


def _speed(row: DeltaGenerator) -> float:
    """The playing speed (1× at first)."""
    if st.session_state.get(SPEED_KEY) not in SPEEDS:
        st.session_state[SPEED_KEY] = 1.0
    speed = row.segmented_control(
        t("traces.replay.speed"),
        SPEEDS,
        key=SPEED_KEY,
        format_func=lambda s: f"{s:g}×",
        help=t("traces.replay.pace", seconds=f"{FRAME_PAUSE_S:g}", words=f"{1 / WORD_S:g}" if WORD_S > 0 else "∞"),
        label_visibility="visible",
        required=True,
    )
    return float(speed or 1.0)


# ── drawing ──────────────────────────────────────────────────────────────────────────────────────


@dataclass
class Scene:
    """A replay on the page: its events and frames, and where it draws (placeholders redrawn at each frame)."""

    events: Sequence[Event]
    frames: Sequence[Frame]
    run_metrics: dict[str, RunMetrics]
    """Metrics of each whole run, for the caption under a finished answer."""
    prices: PriceTable
    first_turn: int
    """Number of the first replayed turn in its session (a single run keeps its place in the conversation)."""
    widths: tuple[int, int] = (3, 2)
    """Relative widths of the chat and trace columns (presentation mode gives the trace more room)."""
    after_draw: Callable[[str], None] | None = None
    """Called in the trace column after each frame is drawn, with a token new at every draw (presentation
    mode brings the current step into view with it)."""
    progress: Any = None
    chat: Any = None
    trace: Any = None

    def place(self) -> None:
        """Make the progress bar, the chat column and the trace column, as on the Chat page."""
        self.progress = st.empty()
        chat, trace = st.columns(list(self.widths), gap="large")
        chat, trace = chat.container(key="replay_chat"), trace.container(key="replay_trace")
        self.chat, self.trace = chat.empty(), trace.empty()

    def draw(self, transcript: Transcript, *, complete: bool) -> None:
        """Draw the turns of a frame (its figures read off its last turn); ``complete``: the end of the recording."""
        with self.chat.container():
            conversation(transcript.turns, self.run_metrics, ended=complete)
        turn = transcript.turns[-1] if transcript.turns else None
        metrics = turn_metrics(turn, prices=self.prices) if turn else None
        with self.trace.container():
            number = self.first_turn + len(transcript.turns) - 1
            live = not (complete and turn and not turn.finished)
            trace_panel(turn, number, metrics, self.prices, live=live, replay=True)
            if self.after_draw is not None:
                self.after_draw(str(time.monotonic_ns()))

    def open_at(self, state: dict[str, Any], speed: float) -> None:
        """Place the scene and draw the cursor's frame: streamed in when a step button just moved to it."""
        self.place()
        if state["animate"]:
            state["animate"] = False
            self.stream_into(state["cursor"], speed)
        else:
            self.show(state["cursor"])

    def show(self, cursor: int) -> None:
        """Draw frame ``cursor`` at once."""
        self._progress(cursor)
        shown = self.events[: self.frames[cursor].end]
        self.draw(Transcript.from_events(shown), complete=cursor == len(self.frames) - 1)

    def _progress(self, cursor: int) -> None:
        last = len(self.frames) - 1
        caption = frame_caption(self.events, self.frames[cursor])
        text = f"{t('traces.replay.frame', n=cursor + 1, total=last + 1)} · {neutralize(caption)}"
        self.progress.progress(cursor / max(1, last), text=text)

    def stream_into(self, cursor: int, speed: float) -> None:
        """Go to frame ``cursor`` as a live run would: its model reply streams in, then the frame shows."""
        at = self.frames[cursor].reply
        reply = self.events[at] if at is not None else None
        if isinstance(reply, ModelFinished) and (reply.text or reply.reasoning):
            self._progress(cursor)
            shown = self.events[:at]
            transcript = Transcript.from_events(shown)
            deltas = stream_deltas(reply)
            pause = stream_seconds(reply, speed) / max(1, len(deltas))
            for delta in deltas:
                transcript.add(delta)
                self.draw(transcript, complete=False)
                time.sleep(pause)
        self.show(cursor)


def player(
    replay_id: str, events: Sequence[Event], run_metrics: dict[str, RunMetrics], prices: PriceTable, first_turn: int = 1
) -> None:
    """The replay of ``events`` (a run or a session, without deltas) with its controls."""
    all_frames = frames(events)
    if not all_frames:
        st.info(t("traces.replay.empty"))
        return
    state = cursor(replay_id, len(all_frames))
    speed = controls(state, position(events, all_frames[state["cursor"]]))
    scene = Scene(events, all_frames, run_metrics, prices, first_turn)
    scene.open_at(state, speed)
    if not state["playing"]:
        return
    while state["playing"] and state["cursor"] < len(all_frames) - 1:
        time.sleep(FRAME_PAUSE_S / speed)
        state["cursor"] += 1
        scene.stream_into(state["cursor"], speed)
    state["playing"] = False
    st.rerun()  # at the end: redraw the controls (Play instead of Pause)
