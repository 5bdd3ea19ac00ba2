"""Plugin tools run in child processes: same results and errors as in the app's process, and a tool that loops
forever is killed at its timeout instead of keeping a thread and a CPU busy."""

from __future__ import annotations

import os
import textwrap
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core.runtime.catalog import tool_catalog
from agent_core.tools import ToolSet
from agent_core.tools.plugins import IsolatedTool, worker_pool
from agent_core.tools.runner import CallRequest, ToolRunner

PLUGIN = textwrap.dedent(
    '''
    import time
    from agent_core.tools import ToolError, ToolOutput, tool

    @tool
    def shout(text: str, times: int = 1) -> str:
        """Repeat a text in capitals.

        Args:
            text: What to shout.
            times: How often.
        """
        return " ".join([text.upper()] * times)

    @tool
    def measure(text: str) -> ToolOutput:
        """Measure a text.

        Args:
            text: The text.
        """
        return ToolOutput(f"{len(text)} characters", {"length": len(text), "words": text.split()})

    @tool
    def refuse(text: str) -> str:
        """Refuse politely.

        Args:
            text: Ignored.
        """
        raise ToolError(f"cannot do {text!r}")

    @tool
    def crash(text: str) -> str:
        """Crash.

        Args:
            text: Ignored.
        """
        raise ValueError(f"bad {text}")

    @tool(timeout=0.5)
    def spin(text: str) -> str:
        """Loop forever.

        Args:
            text: Ignored.
        """
        while True:
            pass

    @tool(timeout=0.5)
    def nap(text: str) -> str:
        """Sleep past the timeout.

        Args:
            text: Ignored.
        """
        time.sleep(5)
        return "woke"
    '''
)


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("plugins") / "loud_tools.py"
    path.write_text(PLUGIN, encoding="utf-8")
    return path


def plugin_tools(plugin: Path, monkeypatch: pytest.MonkeyPatch, isolated: bool) -> ToolSet:
    monkeypatch.setenv("SPARROW_TOOLS", str(plugin))
    monkeypatch.setenv("SPARROW_PLUGIN_PROCESSES", "1" if isolated else "0")
    catalog = tool_catalog(web=False, memory=False, mcp=False)
    names = {"shout", "measure", "refuse", "crash", "spin", "nap"}
    return ToolSet([t for t in catalog.tools if t.name in names])


CALLS = st.one_of(
    st.tuples(st.just("shout"), st.fixed_dictionaries({"text": st.text(max_size=20), "times": st.integers(1, 3)})),
    st.tuples(st.sampled_from(["measure", "refuse", "crash"]), st.fixed_dictionaries({"text": st.text(max_size=20)})),
    st.tuples(st.just("shout"), st.just({"times": "x"})),  # invalid arguments: refused before any process
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(call=CALLS)
def test_a_plugin_call_in_a_process_gives_what_it_gives_in_the_app(
    plugin: Path, monkeypatch: pytest.MonkeyPatch, call: tuple[str, dict]
) -> None:
    name, arguments = call
    request = [CallRequest("c1", name, arguments)]
    isolated = plugin_tools(plugin, monkeypatch, isolated=True)
    assert isinstance(isolated.get(name), IsolatedTool)
    inside = plugin_tools(plugin, monkeypatch, isolated=False)
    there, here = ToolRunner(isolated).run(request)[0], ToolRunner(inside).run(request)[0]
    assert (there.output, there.details, there.error) == (here.output, here.details, here.error)


@pytest.mark.parametrize("name", ["spin", "nap"])
def test_a_tool_past_its_timeout_is_killed_with_its_process(
    plugin: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    tools = plugin_tools(plugin, monkeypatch, isolated=True)
    runner = ToolRunner(tools)
    runner.run([CallRequest("w", "shout", {"text": "warm up"})])  # start-up paid once, before the clock
    before = set(worker_pool().pids())
    threads = threading.active_count()
    result = runner.run([CallRequest("c1", name, {"text": "x"})])[0]
    assert result.error == f"{name} timed out after 0.5 s"
    assert result.output == f"Error: {name} timed out after 0.5 s; try something else."
    time.sleep(1.0)  # the kill comes at the budget plus a short grace
    assert not any(_alive(pid) for pid in before - set(worker_pool().pids()))
    cpu = time.process_time()
    time.sleep(1.0)
    assert time.process_time() - cpu < 0.3  # nothing spins in the app's process
    assert threading.active_count() <= threads + 1
    assert runner.run([CallRequest("c2", "shout", {"text": "again"})])[0].output == "AGAIN"


def test_workers_are_reused_so_start_up_is_paid_once(plugin: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = ToolRunner(plugin_tools(plugin, monkeypatch, isolated=True))
    runner.run([CallRequest("w", "shout", {"text": "warm"})])
    began = time.perf_counter()
    for i in range(20):
        assert runner.run([CallRequest(f"c{i}", "shout", {"text": "hi"})])[0].output == "HI"
    assert (time.perf_counter() - began) / 20 < 0.1


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat")
    return status.exists() and status.read_text().split()[2] != "Z"
