"""The Traces page in AppTest: charts, steps table, Inspector, session overview, replay and export, offline.

Sessions are recorded for real (``run_in_session`` with a ScriptedModel) in a store under a temporary
``SPARROW_DATA_DIR``; no model is configured, as for a user browsing saved sessions without a key.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from agent_core.engine.agent import Agent, AgentSettings
from agent_core.events import Event, ModelDelta, ModelFinished, RunFinished, ToolFinished, with_full_messages
from agent_core.models.pricing import prices_from_env
from agent_core.runtime.sessions import resume_run, run_in_session
from agent_core.store import SessionStore
from agent_core.testing import ScriptedModel
from agent_core.testing.rule_llm import TWO_TOOLS
from agent_core.tools import builtin_tools
from agent_core.trace_export import read_jsonl
from agent_core.views.timeline import build_timeline
from agent_core.views.transcript import Transcript
from sparrow_ui.playback import replay
from sparrow_ui.shell.state import live_runs
from sparrow_ui.trace import trace_charts as charts
from sparrow_ui.trace import trace_downloads as exports
from sparrow_ui.translations.i18n import STRINGS
from sparrow_ui.translations.strings_traces import STRINGS as TRACES_STRINGS
from tests.core.helpers import TWO_TOOLS_ANSWER, TWO_TOOLS_REPLIES, answer, react

FAILING = [react("Divide.", "calculator", expression="1 / 0"), answer("It failed.", "Division by zero is undefined.")]
MODEL = "gpt-4o-mini"
APP = Path(__file__).resolve().parents[2] / "app.py"
TIMEOUT = 30


@pytest.fixture
def store(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[SessionStore]:
    """A store in a fresh data directory, which the app opens too (its cached store is cleared)."""
    monkeypatch.setenv("SPARROW_DATA_DIR", str(tmp_path))
    st.cache_resource.clear()
    opened = SessionStore.open()
    yield opened
    opened.close()
    st.cache_resource.clear()


def agent(replies: list[str], **options: Any) -> Agent:
    """An agent on scripted replies with the built-in tools."""
    return Agent(ScriptedModel(replies, name=MODEL), tools=builtin_tools(), **options)


def record(store: SessionStore, *questions: tuple[str, list[str]]) -> str:
    """A new session where each (question, replies) ran to its end; returns its id."""
    session = store.sessions.create()
    for question, replies in questions:
        list(run_in_session(store, session.id, agent(replies), question))
    return session.id


def open_traces(session_id: str | None = None, **state: Any) -> AppTest:
    """The app on the Traces page (the session in the URL when given), after its first run."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.run()
    at.switch_page("pages/traces.py")
    if session_id:
        at.query_params["session"] = session_id
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def tab(at: AppTest, key: str) -> AppTest:
    """Switch the page's tabs (they run lazily: only the open one is drawn)."""
    label = {"run": "traces.tab.run", "session": "traces.tab.session", "replay": "traces.tab.replay"}[key]
    at.session_state["traces_tab"] = TRACES_STRINGS[label]["en"]
    at.run()
    assert not at.exception, at.exception
    return at


def chart_records(at: AppTest) -> list[list[dict[str, Any]]]:
    """The data of each Altair chart on the page (its first dataset: the layers of a chart share it)."""
    records = []
    for chart in at.get("vega_lite_chart"):
        arrow = chart.proto.data.data or (chart.proto.datasets[0].data.data if chart.proto.datasets else b"")
        records.append(pa.ipc.open_stream(arrow).read_all().to_pylist() if arrow else [])
    return records


def codes(at: AppTest) -> list[str]:
    """Every st.code body on the page."""
    return [c.value for c in at.code]


def stored(store: SessionStore, session_id: str) -> list[Event]:
    """The session's events as stored."""
    return store.log.events(session_id)


# ── Run tab ──────────────────────────────────────────────────────────────────────────────────────


def test_without_sessions_the_page_says_where_traces_come_from(store: SessionStore) -> None:
    at = open_traces()
    assert [i.value for i in at.info] == [STRINGS["traces.no_sessions"]["en"]]


def test_a_run_shows_its_waterfall_tokens_chart_and_steps_table(store: SessionStore) -> None:
    session_id = record(store, (TWO_TOOLS, TWO_TOOLS_REPLIES))
    at = open_traces(session_id)
    waterfall, tokens = chart_records(at)
    assert [(r["lane"], r["category"]) for r in waterfall] == [
        ("Step 1 · gpt-4o-mini", "model call"),
        ("Step 1 · calculator", "tool call"),
        ("Step 2 · gpt-4o-mini", "model call"),
        ("Step 2 · date_calculator", "tool call"),
        ("Step 3 · gpt-4o-mini", "model call"),
    ]
    assert all(r["end"] > r["start"] for r in waterfall)  # even sub-millisecond calls stay visible
    assert [(r["step"], r["kind"]) for r in tokens] == [(s, k) for s in (1, 2, 3) for k in ("prompt", "completion")]
    assert all(r["estimated"] for r in tokens)  # the scripted model sends no usage
    table = at.dataframe[0].value
    assert table[["step", "action"]].values.tolist() == [
        [1, "calculator"],
        [2, "date_calculator"],
        [3, "Final Answer"],
    ]
    assert table["cost"].notna().all()  # gpt-4o-mini has a known price
    columns = list(at.dataframe[0].proto.column_order)
    assert "error" not in columns and columns[-1] == "thought"  # no step failed; free text last, figures first
    assert "estimated" in columns  # the scripted model sends no usage: the estimate is flagged
    assert [m.label for m in at.metric][:3] == ["Status", "Steps", "Tokens"]
    assert at.metric[0].value == "completed"


def test_the_inspector_shows_the_exact_messages_raw_output_parsed_reply_and_observation(
    store: SessionStore,
) -> None:
    session_id = record(store, (TWO_TOOLS, TWO_TOOLS_REPLIES))
    second = [e for e in with_full_messages(stored(store, session_id)) if isinstance(e, ModelFinished)][1]
    at = open_traces(session_id)
    at.selectbox(key=f"inspect_{second.run_id}.en").set_value(2).run()
    assert not at.exception
    shown = codes(at)
    assert json.loads(shown[0]) == [dict(m) for m in second.messages]  # all messages as JSON
    contents = [m["content"] for m in second.messages]
    assert shown[1 : 1 + len(contents)] == contents  # then each message, in order, verbatim
    assert second.text in shown  # the raw output
    assert "Now the date arithmetic." in shown  # the parsed thought
    observation = next(e for e in stored(store, session_id) if isinstance(e, ToolFinished) and e.step == 2)
    assert observation.output in shown
    assert json.loads(shown[shown.index(second.text) + 2]) == {"operation": "add", "date": "2024-05-20", "days": 150}


def test_the_steps_table_filters_errors_and_tools(store: SessionStore) -> None:
    session_id = record(store, (TWO_TOOLS, TWO_TOOLS_REPLIES), ("What is 1 / 0?", FAILING))
    at = open_traces(session_id)
    run_id = at.session_state["traces_run"]
    assert len(at.dataframe[0].value) == 2
    at.toggle(key=f"errors_only_{run_id}").set_value(True).run()
    table = at.dataframe[0].value
    assert table["step"].tolist() == [1]
    assert "division by zero" in table["error"][0]
    assert list(at.dataframe[0].proto.column_order)[:3] == ["step", "action", "error"]
    assert table["error"][0].count("calculator:") == 1  # the tool's own prefix is not doubled
    at.toggle(key=f"errors_only_{run_id}").set_value(False).run()
    at.selectbox(key="traces_run.en").set_value(at.selectbox(key="traces_run.en").options[0])
    at.run()
    first_run = at.session_state["traces_run"]
    at.multiselect(key=f"tools_{first_run}").set_value(["date_calculator"]).run()
    assert at.dataframe[0].value["step"].tolist() == [2]


def test_the_url_session_is_shown_and_a_pick_goes_into_the_url(store: SessionStore) -> None:
    older = record(store, ("What is 1 / 0?", FAILING))
    newer = record(store, (TWO_TOOLS, TWO_TOOLS_REPLIES))
    at = open_traces()
    assert at.selectbox(key="traces_session").value == newer  # most recent by default
    assert at.query_params["session"] == newer
    at.selectbox(key="traces_session").set_value(older).run()
    assert at.query_params["session"] == older
    assert at.dataframe[0].value["action"].tolist() == ["calculator", "Final Answer"]


def test_a_session_picked_here_opens_on_chat_with_its_last_turn_traced(store: SessionStore) -> None:
    first = record(store, (TWO_TOOLS, TWO_TOOLS_REPLIES), ("What is 1 / 0?", FAILING))
    second = record(store, ("Divide one by zero", FAILING))
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params["session"] = first
    at.run()
    next(b for b in at.button if b.key and b.key.startswith("select_")).click().run()  # turn 1 of the first
    assert trace_panel(at) == ["**Turn 1** · completed", TWO_TOOLS]
    at.query_params.pop("session", None)  # the sidebar navigation drops query parameters
    at.switch_page("pages/traces.py").run()
    at.selectbox(key="traces_session").set_value(second).run()
    at.query_params.pop("session", None)
    at.switch_page("pages/chat.py").run()
    assert not at.exception, at.exception
    assert at.query_params["session"] == second
    assert trace_panel(at) == ["**Turn 1** · completed", "Divide one by zero"]


def trace_panel(at: AppTest) -> list[str]:
    """What the Chat page's trace panel says about its turn: the header line and the question, or why none."""
    header = [m.value for m in at.main.markdown if m.value.startswith("**Turn")]
    captions = [c.value for c in at.main.caption]
    return header + [c for c in captions if c in (TWO_TOOLS, "Divide one by zero", "No turn selected yet.")]


# ── Session tab ──────────────────────────────────────────────────────────────────────────────────


def test_the_session_overview_lists_every_run_with_its_figures(store: SessionStore) -> None:
    session_id = record(store, (TWO_TOOLS, TWO_TOOLS_REPLIES), ("What is 1 / 0?", FAILING))
    at = open_traces(session_id)
    tab(at, "session")
    table = at.dataframe[0].value
    assert table[["turn", "question", "status", "steps", "tool_calls", "errors"]].values.tolist() == [
        [1, TWO_TOOLS, "completed", 3, 2, 0],
        [2, "What is 1 / 0?", "completed", 2, 1, 1],
    ]
    assert table["tokens"].gt(0).all() and table["cost"].gt(0).all()
    by_tokens, by_time = chart_records(at)
    assert sorted({(r["turn"], r["part"]) for r in by_tokens}) == [
        (t, p) for t in (1, 2) for p in ("completion", "prompt")
    ]
    parts = {"model", "tools", "start (prompt, memory, storing)", "between calls (parsing, checks, storing)"}
    assert {r["part"] for r in by_time} == parts  # "other" named: the parts add up to each turn's duration
    for turn, run in enumerate([*at.session_state["_session_views"].values()][-1][1].metrics.runs, start=1):
        seconds = sum(r["value"] for r in by_time if r["turn"] == turn)
        assert seconds == pytest.approx(run.duration_ms / 1000)
    assert at.metric[0].label == "Turns" and at.metric[0].value == "2"


# ── Replay ───────────────────────────────────────────────────────────────────────────────────────


def trace_texts(at: AppTest) -> list[str]:
    """What the replayed trace and chat show: markdown, text and code bodies."""
    return [e.value for e in at.main if e.type in ("markdown", "text", "code")]


def test_replay_advances_step_by_step_and_back(store: SessionStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay, "WORD_S", 0.0)
    session_id = record(store, (TWO_TOOLS, TWO_TOOLS_REPLIES))
    at = tab(open_traces(session_id), "replay")
    pace = at.get("button_group")[0].proto
    assert pace.label == "Demo pace" and "not the recorded timing: at 1× each step shows for 1.2 s" in pace.help
    seen = []
    for _ in range(5):
        seen.append(at.get("progress")[0].proto.text)
        assert TWO_TOOLS in trace_texts(at)
        at.button(key="replay_next").click().run()
        assert not at.exception
    seen.append(at.get("progress")[0].proto.text)
    assert seen == [
        "1 of 6 · the question",
        "2 of 6 · Step 1 · model reply",
        "3 of 6 · Step 1 · Observation (calculator)",
        "4 of 6 · Step 2 · model reply",
        "5 of 6 · Step 2 · Observation (date_calculator)",
        "6 of 6 · Step 3 · Final Answer",
    ]
    assert at.button(key="replay_next").disabled
    texts = trace_texts(at)
    assert TWO_TOOLS_ANSWER in texts
    assert "391" in texts  # the first observation, as the live trace shows it
    at.button(key="replay_previous").click().run()
    assert at.get("progress")[0].proto.text == "5 of 6 · Step 2 · Observation (date_calculator)"
    assert "*Thinking…*" in trace_texts(at)
    at.button(key="replay_restart").click().run()
    assert at.get("progress")[0].proto.text == "1 of 6 · the question"


def test_play_runs_the_replay_to_its_end_and_stops(store: SessionStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay, "WORD_S", 0.0)
    monkeypatch.setattr(replay, "FRAME_PAUSE_S", 0.0)
    session_id = record(store, (TWO_TOOLS, TWO_TOOLS_REPLIES))
    at = tab(open_traces(session_id), "replay")
    at.button(key="replay_play").click().run()
    assert not at.exception
    assert at.get("progress")[0].proto.text.startswith("6 of 6")
    assert at.button(key="replay_play")  # stopped: Play is back
    assert at.session_state[replay.STATE_KEY]["playing"] is False


def test_the_whole_session_can_be_replayed(store: SessionStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay, "WORD_S", 0.0)
    session_id = record(store, (TWO_TOOLS, TWO_TOOLS_REPLIES), ("What is 1 / 0?", FAILING))
    at = tab(open_traces(session_id), "replay")
    at.toggle(key="replay_whole").set_value(True).run()
    assert at.get("progress")[0].proto.text == "1 of 10 · the question"
    at.button(key="replay_end").click().run()
    assert at.get("progress")[0].proto.text == "10 of 10 · Step 2 · Final Answer"
    assert [m.value for m in at.markdown if m.value.startswith("**Turn")] == ["**Turn 2** · completed"]


def test_a_replayed_reply_streams_from_its_stored_text() -> None:
    reply = ModelFinished(run_id="r", step=1, text="Thought: a b c\nAction: x", reasoning="think first")
    deltas = replay.stream_deltas(reply)
    assert all(isinstance(d, ModelDelta) and d.step == 1 for d in deltas)
    assert "".join(d.text for d in deltas if d.channel == "text") == reply.text
    assert "".join(d.text for d in deltas if d.channel == "reasoning") == reply.reasoning
    long = ModelFinished(run_id="r", step=1, text="word " * 1000)
    assert len(replay.stream_deltas(long)) <= replay.MAX_STREAM_UPDATES
    assert replay.stream_seconds(long, 2.0) == replay.MAX_STREAM_S / 2


# ── Interrupted and resumed runs ─────────────────────────────────────────────────────────────────


def interrupted_then_resumed(store: SessionStore) -> tuple[str, str]:
    """A session whose run was cut after step 1 and resumed, and one whose run stays interrupted."""
    events = list(agent(list(TWO_TOOLS_REPLIES)).run(TWO_TOOLS))
    cut = next(i for i, e in enumerate(events) if isinstance(e, ToolFinished)) + 1
    kept = [e for e in events[:cut] if not isinstance(e, ModelDelta)]
    resumed = store.sessions.create()
    store.log.append(resumed.id, kept)
    list(resume_run(store, resumed.id, agent(list(TWO_TOOLS_REPLIES[1:]))))
    interrupted = store.sessions.create()
    store.log.append(interrupted.id, kept)
    return resumed.id, interrupted.id


def test_interrupted_and_resumed_runs_are_browsed_and_replayed(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replay, "WORD_S", 0.0)
    resumed, interrupted = interrupted_then_resumed(store)
    at = open_traces(resumed)
    assert at.metric[0].value == "completed"
    assert at.dataframe[0].value["step"].tolist() == [1, 2, 3]
    spec = json.loads(at.get("vega_lite_chart")[0].proto.spec)
    assert [layer["mark"]["type"] for layer in spec["layer"][1]["layer"]] == ["rule", "text"]  # the resume mark
    tab(at, "replay").button(key="replay_end").click().run()
    assert not at.exception
    assert any("Resumed here after an interruption" in c.value for c in at.caption)

    at = open_traces(interrupted)
    assert at.metric[0].value == "interrupted"
    assert [w.value for w in at.warning] == [STRINGS["chat.interrupted"]["en"]]
    assert len(chart_records(at)[0]) == 2  # the model call and the tool call of step 1
    tab(at, "session")
    assert at.dataframe[0].value["status"].tolist() == ["interrupted"]
    tab(at, "replay").button(key="replay_end").click().run()
    assert not at.exception
    assert [w.value for w in at.warning] == [STRINGS["traces.replay.interrupted"]["en"]]


def test_a_run_in_progress_shows_as_running_with_a_refresh_button(store: SessionStore) -> None:
    events = [e for e in agent(list(TWO_TOOLS_REPLIES)).run(TWO_TOOLS) if not isinstance(e, ModelDelta)]
    session = store.sessions.create()
    store.log.append(session.id, events[:4])  # the run so far: started, step 1, the model's reply, the tool call
    release = threading.Event()

    def still_running(cancel: Any) -> Iterator[Event]:
        """A run that produces nothing until the test releases it."""
        release.wait(10)
        yield from ()

    live = live_runs().start(session.id, still_running, run_id=events[0].run_id)
    try:
        at = open_traces(session.id)
        assert at.metric[0].value == "running…"
        assert [i.value for i in at.info] == [STRINGS["traces.live"]["en"]]
        assert not at.warning  # not "interrupted"
        at.button(key="refresh").click().run()
        assert not at.exception
    finally:
        release.set()
        live.join(5)


# ── Export ───────────────────────────────────────────────────────────────────────────────────────


def test_exports_are_offered_in_three_formats_and_built_only_on_download(store: SessionStore) -> None:
    session_id = record(store, (TWO_TOOLS, TWO_TOOLS_REPLIES))
    at = open_traces(session_id)
    assert [b.label for b in at.get("download_button")] == [
        "Download report (HTML)",  # issue 13: the self-contained report comes first
        "Events (JSON Lines)",
        "OpenTelemetry (OTLP/JSON)",
        "Report (Markdown)",
    ]
    info = store.sessions.get(session_id)
    events = stored(store, session_id)
    price_table = prices_from_env()
    assert read_jsonl(exports.exporter(store, info, "jsonl", price_table)().splitlines()) == events
    spans = json.loads(exports.exporter(store, info, "otel", price_table)())["resourceSpans"][0]["scopeSpans"][0]
    assert len(spans["spans"]) == 1 + 3 + 2  # the run, three model calls, two tool calls
    report = exports.exporter(store, info, "md", price_table)()
    assert TWO_TOOLS in report and "2024-10-17" in report
    assert TWO_TOOLS in exports.exporter(store, info, "html", price_table)()
    assert exports.trace_file_name(info, "otel").endswith(f"-{session_id}.otlp.json")


class Receiver:
    """A local OTLP/HTTP endpoint that accepts (or refuses) whatever is posted to it."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.posts: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            """Records the path of each POST."""

            def log_message(self, format: str, *args: Any) -> None:
                """Stay quiet."""

            def do_POST(self) -> None:
                """Accept or refuse."""
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.posts.append(self.path)
                self.send_response(receiver.status)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        """The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT."""
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Receiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("status", [200, 400])
def test_send_to_otlp_appears_with_an_endpoint_and_reports_the_outcome(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch, status: int
) -> None:
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http")
    session_id = record(store, (TWO_TOOLS, TWO_TOOLS_REPLIES))
    assert "export_send" not in [b.key for b in open_traces(session_id).button]
    with Receiver(status) as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
        at = open_traces(session_id)
        at.button(key="export_send").click().run()
        assert not at.exception
    assert receiver.posts == ["/v1/traces"]
    if status == 200:
        assert [s.value for s in at.success] == [f"Sent 6 spans to {receiver.url}/v1/traces."]
        assert not at.error
    else:
        assert not at.success
        assert at.error[0].value.startswith("Could not send the trace: the OTLP endpoint")


# ── Safety and languages ─────────────────────────────────────────────────────────────────────────


def test_model_and_tool_text_is_never_rendered_as_html(store: SessionStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay, "WORD_S", 0.0)
    hostile = "<img src=x onerror=alert(1)> ![track](http://example.com/p.png) <script>alert(2)</script>"
    session_id = record(store, (f"Say {hostile}", [answer(hostile, hostile)]))
    at = open_traces(session_id)
    assert any(hostile in c for c in codes(at))
    for where in ("run", "session", "replay"):
        tab(at, where)
        if where == "replay":
            at.button(key="replay_end").click().run()
        assert not [m.value for m in at.markdown if m.proto.allow_html]
        own = [h.proto.body for h in at.get("html")]  # Sparrow's own style and scripts, never the recorded text
        assert own and not [body for body in own if "onerror" in body or "alert(" in body or "example.com" in body]
        assert not any("example.com/p.png)" in m.value and "![" in m.value for m in at.markdown)


def test_every_traces_string_has_english_and_chinese() -> None:
    assert all(set(entry) == {"en", "zh"} and all(entry.values()) for entry in TRACES_STRINGS.values())
    assert all(key in STRINGS for key in TRACES_STRINGS)


def test_the_page_speaks_chinese(store: SessionStore) -> None:
    session_id = record(store, (TWO_TOOLS, TWO_TOOLS_REPLIES))
    at = open_traces(session_id)
    at.segmented_control(key="lang_choice").set_value("zh").run()
    assert at.metric[0].label == "状态"
    assert chart_records(at)[0][1]["category"] == "工具调用"


def test_the_chosen_run_and_step_survive_a_change_of_language(store: SessionStore) -> None:
    session_id = record(store, (TWO_TOOLS, TWO_TOOLS_REPLIES), ("What is 1 / 0?", FAILING))
    run_id = stored(store, session_id)[0].run_id  # the first turn (the page opens on the last)
    at = open_traces(session_id)
    at.selectbox(key="traces_run.en").set_value(run_id).run()
    at.selectbox(key=f"inspect_{run_id}.en").set_value(2).run()
    at.segmented_control(key="lang_choice").set_value("zh").run()
    assert not at.exception
    assert at.selectbox(key="traces_run.zh").value == run_id
    assert at.selectbox(key="traces_run.zh").options[0].startswith("第 1 轮")
    assert at.selectbox(key=f"inspect_{run_id}.zh").value == 2


def _translated_picker() -> None:
    """A translated selectbox, a language switch and another widget to interact with (an AppTest script)."""
    import streamlit as st

    from sparrow_ui.elements.widgets import translated_selectbox
    from sparrow_ui.shell.sidebar import language_picker
    from sparrow_ui.translations.i18n import t

    language_picker()
    translated_selectbox("Turn", [1, 2], key="turn", default=2, format_func=lambda n: t("trace.turn", n=n))
    st.toggle("Something else", key="other")


def test_a_translated_selectbox_keeps_its_choice_across_languages_and_later_clicks() -> None:
    at = AppTest.from_function(_translated_picker, default_timeout=TIMEOUT).run()
    at.selectbox(key="turn.en").set_value(1).run()
    at.segmented_control(key="lang_choice").set_value("zh").run()
    at.toggle(key="other").set_value(True).run()  # the browser still holds the English label: no harm done
    assert not at.exception
    assert at.session_state["turn"] == 1
    assert at.selectbox(key="turn.zh").options == ["第 1 轮", "第 2 轮"] and at.selectbox(key="turn.zh").value == 1


def test_records_of_a_finished_run_replay_to_the_same_transcript(store: SessionStore) -> None:
    session_id = record(store, (TWO_TOOLS, TWO_TOOLS_REPLIES))
    events = replay.replay_events(stored(store, session_id))
    frames = replay.frames(events)
    assert frames[-1].end == len(events) and isinstance(events[-1], RunFinished)
    assert [events[f.reply].step for f in frames if f.reply is not None] == [1, 2, 3]
    final = Transcript.from_events(events[: frames[-1].end]).turns[0]
    assert final.answer == Transcript.from_events(events).turns[0].answer


def test_a_long_run_gets_the_compact_waterfall() -> None:
    steps = charts.MAX_LANES  # two calls per step: twice as many calls as lanes
    replies = [react(f"step {i}", "calculator", expression=f"{i} * 2") for i in range(steps - 1)]
    events = list(agent([*replies, answer("done", "ok")], settings=AgentSettings(max_steps=steps)).run("count"))
    timeline = build_timeline(events)
    spec = charts.waterfall_chart(timeline).to_dict()
    assert spec["mark"]["type"] == "rule" and spec["encoding"]["y"]["field"] == "step"
    assert spec["height"] == charts.COMPACT_HEIGHT


def _shown_cells(element: Any) -> dict[str, list[str]]:
    """What the table's cells show (the Styler's display values), by column."""
    shown = pa.ipc.open_stream(element.proto.arrow_data.styler.display_values).read_all().to_pandas()
    return {str(c): [str(v) for v in shown[c]] for c in element.value.columns if c in shown}


def test_table_cells_read_like_the_rest_of_the_app_and_an_unknown_price_is_a_dash(store: SessionStore) -> None:
    session = store.sessions.create()
    model = Agent(ScriptedModel(TWO_TOOLS_REPLIES, name="my-local-model"), tools=builtin_tools())
    list(run_in_session(store, session.id, model, TWO_TOOLS))
    at = open_traces(session.id)
    steps, step_costs = _shown_cells(at.dataframe[0]), at.dataframe[0].value["cost"].tolist()
    tab(at, "session")
    runs = _shown_cells(at.dataframe[0])
    assert steps["cost"] == ["—", "—", "—"] and runs["cost"] == ["—"]
    assert all(cell == "<1 ms" or cell.endswith(" ms") for cell in steps["tool_ms"][:2])
    assert steps["tool_ms"][2] == "—"  # the answer step called no tool
    assert all(cell == "<1 ms" or cell.endswith(" ms") for cell in steps["latency_ms"] + steps["ttft_ms"])
    assert runs["seconds"][0].endswith(("ms", " s"))
    assert not any("None" in cell for cells in (*steps.values(), *runs.values()) for cell in cells)
    assert step_costs == [-1.0] * 3  # numbers, so a click on the header sorts them (unknown first)
