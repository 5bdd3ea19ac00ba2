"""Which tool calls wait for a person: in the app and the CLI, tools that send data off the machine or store it.

A tool asks first when it is marked ``needs_approval``, unless ``AgentSettings.tool_approval`` says
otherwise for it. The app and the CLI start from ``app_defaults()`` (every tool in ``ASK_FIRST`` asks),
then apply the person's choices (the Tools page; ``--trust`` in the CLI); ``require_approval=False``
(``--yes``) approves every call. A bare library ``Agent`` keeps each tool's own ``needs_approval``.
"""

from __future__ import annotations

from collections.abc import Mapping

from agent_core.tools.tool import Tool

ASK_FIRST: dict[str, str] = {
    "web_search": "sends words the model chose to a search provider",
    "fetch_url": "requests a web address the model chose",
    "get_weather": "sends a place name to a weather service",
    "remember": "stores text in long-term memory, read back in later sessions",
}
"""Built-in tools that ask before each call unless trusted, with why."""


def app_defaults() -> dict[str, bool]:
    """The per-tool approval settings the app and the CLI start from: every ``ASK_FIRST`` tool asks."""
    return dict.fromkeys(ASK_FIRST, True)


def asks_first(tool: Tool, settings: Mapping[str, bool] | None = None) -> bool:
    """True when a call to ``tool`` waits for approval (a per-tool setting wins over the tool's own mark)."""
    if settings and tool.name in settings:
        return bool(settings[tool.name])
    return tool.needs_approval


def why_ask(tool: Tool) -> str | None:
    """Why the tool asks first by default (None when it does not)."""
    if tool.name in ASK_FIRST:
        return ASK_FIRST[tool.name]
    return "marked as needing approval" if tool.needs_approval else None
