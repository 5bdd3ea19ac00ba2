"""A real run whose every text is hostile (markup, script, remote images, javascript: links) or holds a secret."""

from __future__ import annotations

import json

from agent_core.engine.agent import Agent
from agent_core.events import Event
from agent_core.testing import ScriptedModel
from agent_core.tools import Tool, calculator, tool

HOSTILE = (
    '</script><script>alert(1)</script> <img src=http://evil.example/x.png onerror="alert(2)"> '
    '<a href="javascript:alert(3)">click</a> [md](javascript:alert(4)) ![i](http://evil.example/i.png) '
    "<style>@import url(http://evil.example/s.css)</style> \"'><svg onload=alert(5)> &amp; <!-- x -->"
)
SECRET = "sk-" + "proj-" + "Xy9_Zw8-" * 8
"""An OpenAI-shaped key, assembled so that this file holds no string a secret scanner would flag."""


@tool
def echo(text: str) -> str:
    """Return the text it is given, with a leaked key beside it.

    Args:
        text: Any text.
    """
    return f"{text} OPENAI_API_KEY={SECRET}"


def hostile_events() -> list[Event]:
    """A run (no output check, as from an imported file) with hostile text in every field the report shows."""
    args = json.dumps({"text": HOSTILE})
    replies = [
        f"Thought: {HOSTILE}\nAction: echo\nAction Input: {args}",
        f"Thought: {HOSTILE}\nAction: {HOSTILE[:40]}\nAction Input: {{}}",
        f"Thought: done {SECRET}\nFinal Answer: **bold** {HOSTILE}",
    ]
    tools: list[Tool] = [echo, calculator]
    agent = Agent(ScriptedModel(replies, name=HOSTILE[:60]), tools, output_check=None)
    return list(agent.run(HOSTILE))
