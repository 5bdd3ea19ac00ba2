"""A streamable-HTTP server started by the tests with the SDK on 127.0.0.1: headers, results of every kind."""

from __future__ import annotations

import json

import pytest

from agent_core.tools import ToolError
from agent_core.tools.mcp import parse_config
from tests.mcp.conftest import require_sdk

require_sdk()


@pytest.fixture
def remote(servers, http_demo: str) -> dict:
    config = {"web": {"url": http_demo, "headers": {"X-Team": "${TEAM}"}, "trust": True, "timeout": 2}}
    found = servers.tools(parse_config({"mcpServers": config}, environ={"TEAM": "sparrow-crew"}), taken=["web__echo"])
    assert found.errors == ()
    assert found.servers[0].status().line().startswith(f"web [http: {http_demo}] running, 8 tools, started in ")
    return {t.name: t for t in found.tools}


def test_tools_are_listed_renamed_around_a_taken_name_and_called(remote: dict) -> None:
    assert "web__echo_2" in remote and "web__echo" not in remote
    assert remote["web__echo_2"].remote_name == "echo"
    assert remote["web__add"].invoke({"a": 2, "b": 40}).content == '{"result": 42}'


def test_configured_headers_reach_the_server(remote: dict) -> None:
    assert remote["web__header"].invoke({"name": "x-team"}).content == '{"result": "sparrow-crew"}'


def test_structured_content_is_json_and_kept_as_details(remote: dict) -> None:
    output = remote["web__forecast"].invoke({"city": "Oslo"})
    assert json.loads(output.content) == {"city": "Oslo", "celsius": 21.5} == output.details


def test_images_and_resources_are_described_never_passed_on(remote: dict) -> None:
    output = remote["web__picture"].invoke({})
    assert output.content == (
        "here is the chart\n"
        "[image: image/png, 29 bytes; not shown]\n"
        "[resource link: report <https://example.invalid/report.pdf>, application/pdf]\n"
        "[resource <memo://1>]\nmemo text"
    )
    assert [item["type"] for item in output.details] == ["image", "resource_link", "resource"]
    assert "base64" not in json.dumps(output.details) and "iVBOR" not in json.dumps(output.details)


def test_a_hanging_call_over_http_times_out_and_the_next_call_works(remote: dict) -> None:
    with pytest.raises(ToolError, match="did not answer hang within 2 s"):
        remote["web__hang"].invoke({"seconds": 20})
    assert remote["web__echo_2"].invoke({"text": "ok"}).content == '{"result": "echo: ok"}'
