"""Whole agent runs that call MCP tools: both protocols, approvals, tool retrieval, servers reused across runs."""

from __future__ import annotations

import threading

from agent_core import Agent
from agent_core.engine.approvals import approval_key
from agent_core.events import ApprovalRequested, ToolFinished
from agent_core.testing import Reply, ScriptedModel
from agent_core.tools import builtin_tools
from agent_core.tools.mcp import parse_config
from tests.core.helpers import answer, react, simplify
from tests.mcp.conftest import demo_entry, reference_server, require_sdk

require_sdk()


def mcp_tools(servers, entries: dict) -> list:
    found = servers.tools(parse_config({"mcpServers": entries}), taken=[t.name for t in builtin_tools()])
    assert found.errors == ()
    return [*builtin_tools(), *found.tools]


def test_react_run_calls_an_mcp_tool(servers) -> None:
    tools = mcp_tools(servers, {"demo": demo_entry(trust=True)})
    model = ScriptedModel([react("Add them on the server.", "demo__add", a=19, b=23), answer("Done.", "42")])
    events = list(Agent(model, tools, protocol="react").run("What is 19 + 23?"))
    assert simplify(events)[2:] == [
        ("model", "Add them on the server.", [("demo__add", {"a": 19, "b": 23})]),
        ("tool", "demo__add", {"a": 19, "b": 23}),
        ("observation", '{"result": 42}', None),
        ("step", 2),
        ("model", "Done.", "42"),
        ("answer", "42"),
        ("finished", "completed", "42", None),
    ]
    prompt = model.requests[0].messages[0]["content"]
    assert "demo__add" in prompt and "Add two integers." in prompt
    model.assert_complete()


def test_native_run_offers_the_server_schema_and_survives_a_failing_tool(servers) -> None:
    tools = mcp_tools(servers, {"demo": demo_entry(trust=True)})
    model = ScriptedModel(
        [
            Reply(tool_calls=(("demo__fail", {"reason": "quota exceeded"}), ("demo__echo", {"text": "hi"}))),
            "The echo worked; the other call failed (quota exceeded).",
        ]
    )
    events = list(Agent(model, tools, protocol="tools").run("Try both."))
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [(e.tool, e.output, e.error) for e in finished] == [
        (
            "demo__fail",
            "Error: MCP server 'demo' reports an error from fail: Error executing tool fail: quota exceeded",
            "MCP server 'demo' reports an error from fail: Error executing tool fail: quota exceeded",
        ),
        ("demo__echo", '{"result": "echo: hi"}', None),
    ]
    assert events[-1].status == "completed"
    offered = {t["function"]["name"]: t["function"] for t in model.requests[0].tools}
    assert offered["demo__add"]["parameters"]["properties"] == {
        "a": {"title": "A", "type": "integer"},
        "b": {"title": "B", "type": "integer"},
    }
    assert offered["demo__add"]["parameters"]["required"] == ["a", "b"]


def test_an_untrusted_server_asks_for_approval_first(servers) -> None:
    tools = mcp_tools(servers, {"demo": demo_entry()})
    agent = Agent(
        ScriptedModel([Reply(tool_calls=(("demo__echo", {"text": "ok?"}),)), "fine"]), tools, protocol="tools"
    )
    seen = []
    for event in agent.run("Echo something."):
        seen.append(event)
        if isinstance(event, ApprovalRequested):
            key = approval_key(event.run_id, event.step, event.call_id)
            threading.Thread(target=agent.approvals.decide, args=(key, True)).start()
    assert [(e.tool, e.output) for e in seen if isinstance(e, ToolFinished)] == [
        ("demo__echo", '{"result": "echo: ok?"}')
    ]
    assert [e.type for e in seen if e.type.startswith("approval")] == ["approval_requested", "approval_decided"]


def test_tool_retrieval_picks_the_mcp_tool_that_fits(servers) -> None:
    tools = mcp_tools(servers, {"time": {"command": reference_server("mcp-server-time"), "trust": True}})
    model = ScriptedModel(
        [
            Reply.call("time__convert_time", source_timezone="Etc/UTC", time="09:00", target_timezone="Asia/Tokyo"),
            "18:00 in Tokyo.",
        ]
    )
    question = "Convert 09:00 from the Etc/UTC timezone to the Asia/Tokyo timezone."
    events = list(Agent(model, tools, protocol="tools", max_tools=2).run(question))
    offered = [t["function"]["name"] for t in model.requests[0].tools]
    assert len(offered) == 2 and "time__convert_time" in offered
    (result,) = [e for e in events if isinstance(e, ToolFinished)]
    assert result.error is None and '"time_difference": "+9.0h"' in result.output


def test_servers_are_reused_across_runs(servers) -> None:
    tools = mcp_tools(servers, {"demo": demo_entry(trust=True)})
    connection = next(t for t in tools if t.name == "demo__echo").connection
    for number in range(3):
        model = ScriptedModel([Reply.call("demo__echo", text=f"run {number}"), "ok"])
        events = list(Agent(model, tools, protocol="tools").run("Echo."))
        assert events[-1].status == "completed"
    again = servers.tools(parse_config({"mcpServers": {"demo": demo_entry(trust=True)}}), taken=())
    assert again.tools[0].connection is connection
    assert connection.starts == 1


def test_a_server_dying_mid_run_is_an_observation_and_the_run_goes_on(servers) -> None:
    tools = mcp_tools(servers, {"demo": demo_entry(trust=True)})
    model = ScriptedModel(
        [
            react("Try the fragile tool.", "demo__crash"),
            react("It died; try again with echo.", "demo__echo", text="back"),
            answer("The server came back.", "back"),
        ]
    )
    events = list(Agent(model, tools, protocol="react").run("Crash it, then echo."))
    observations = [(e.tool, e.output) for e in events if isinstance(e, ToolFinished)]
    assert observations == [
        (
            "demo__crash",
            "Error: MCP server 'demo' stopped during the call to crash "
            "(its last words: demo server: crashing on purpose); it restarts on the next call",
        ),
        ("demo__echo", '{"result": "echo: back"}'),
    ]
    assert events[-1].status == "completed" and events[-1].final_answer == "back"
