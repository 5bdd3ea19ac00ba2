"""Protocol ``json`` with a real MCP server's tools: their input schemas join the reply schema and the loop runs."""

from __future__ import annotations

import json

import jsonschema

from agent_core import Agent
from agent_core.engine.protocols.json_reply import reply_schema
from agent_core.testing import ScriptedModel
from agent_core.tools.mcp import parse_config
from tests.mcp.conftest import reference_server, require_sdk

require_sdk()


def test_time_server_tools_in_the_json_protocol(servers) -> None:
    config = parse_config({"mcpServers": {"time": {"command": reference_server("mcp-server-time"), "trust": True}}})
    tools = list(servers.tools(config, taken=[]).tools)
    schema = reply_schema(tools)
    jsonschema.Draft202012Validator.check_schema(schema)
    call = {"tool": "time__get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}
    assert jsonschema.Draft202012Validator(schema).is_valid({"action": call})
    assert not jsonschema.Draft202012Validator(schema).is_valid(
        {"action": {"tool": "time__get_current_time", "arguments": {}}}  # the nullable timezone must be written
    )
    script = [json.dumps({"action": call}), '{"final_answer": "done"}']
    events = list(Agent(ScriptedModel(script), tools, protocol="json").run("What time is it in Tokyo?"))
    observation = next(e for e in events if e.type == "tool_finished")
    assert (observation.error, json.loads(observation.output)["timezone"], events[-1].status) == (
        None,
        "Asia/Tokyo",
        "completed",
    )
