"""A small MCP server for the tests, built with the official SDK: ``python demo_server.py [stdio | http PORT]``.

Its tools cover what Sparrow must handle: text, structured results, images and resource links, a tool error,
a tool that hangs, and one that kills the server in the middle of a call.
"""

from __future__ import annotations

import os
import sys
import time

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp_types import EmbeddedResource, ResourceLink, TextContent, TextResourceContents
from pydantic import BaseModel

server = MCPServer("demo", log_level="ERROR")
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")


class Forecast(BaseModel):
    """A structured result."""

    city: str
    celsius: float


@server.tool()
def echo(text: str) -> str:
    """Repeat the text back, prefixed with 'echo:'."""
    return f"echo: {text}"


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def forecast(city: str) -> Forecast:
    """A made-up forecast for a city, as structured content."""
    return Forecast(city=city, celsius=21.5)


@server.tool(structured_output=False)
def picture() -> list:
    """An image, a link to a resource and an embedded text resource."""
    return [
        TextContent(type="text", text="here is the chart"),
        Image(data=PNG, format="png").to_image_content(),
        ResourceLink(
            type="resource_link", name="report", uri="https://example.invalid/report.pdf", mime_type="application/pdf"
        ),
        EmbeddedResource(type="resource", resource=TextResourceContents(uri="memo://1", text="memo text")),
    ]


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the given reason."""
    raise ToolError(reason)


@server.tool()
def hang(seconds: float) -> str:
    """Sleep for a number of seconds (the tests use it to hit a timeout)."""
    time.sleep(seconds)
    return "woke up"


@server.tool()
def header(name: str, ctx: Context) -> str:
    """The value of an HTTP request header the client sent (streamable HTTP only)."""
    request = ctx.request_context.request
    return str(request.headers.get(name, "(absent)")) if request is not None else "(not over HTTP)"


@server.tool()
def crash() -> str:
    """Kill the server process at once, in the middle of the call."""
    sys.stderr.write("demo server: crashing on purpose\n")
    sys.stderr.flush()
    os._exit(3)


if __name__ == "__main__":
    if os.environ.get("DEMO_PID_FILE"):
        with open(os.environ["DEMO_PID_FILE"], "a", encoding="utf-8") as pids:
            pids.write(f"{os.getpid()}\n")
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    elif len(sys.argv) > 2 and sys.argv[1] == "sse":
        server.run("sse", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
