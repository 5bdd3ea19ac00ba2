"""The worker side of isolated plugin tools: the child's loop, the shared pool, and wrapping loaded plugins.

See ``isolated`` for why plugin tools run in child processes; this module joins it to ``plugins`` (which finds
the tools) so that neither imports the other.
"""

from __future__ import annotations

from multiprocessing.connection import Connection
from typing import Any

from pydantic_core import to_jsonable_python

from agent_core.env_settings import env_settings
from agent_core.process_resources import resources
from agent_core.tools import plugins
from agent_core.tools.isolated import IsolatedTool, Loader, WorkerPool, isolation_on
from agent_core.tools.tool import Tool, ToolError


def _pool_size() -> int:
    return env_settings().sparrow_plugin_workers


def isolate(loaded: plugins.LoadedTools) -> list[Tool]:
    """The loaded plugin tools, each running in the worker pool (as they are with ``SPARROW_PLUGIN_PROCESSES=0``)."""
    if not isolation_on():
        return list(loaded.tools)
    return [
        IsolatedTool(t, loaded.loaders[t.name], worker_pool()) if t.name in loaded.loaders else t for t in loaded.tools
    ]


def serve(conn: Connection) -> None:
    """A worker's loop: load the asked plugin (once), run the call, send back its output or its error."""
    loaded: dict[Loader, dict[str, Tool]] = {}
    while True:
        try:
            loader, name, arguments = conn.recv()
        except (EOFError, OSError):
            return
        conn.send(_run(loaded, loader, name, arguments))


def _run(loaded: dict[Loader, dict[str, Tool]], loader: Loader, name: str, arguments: dict[str, Any]) -> Any:
    try:
        if loader not in loaded:
            loaded[loader] = {t.name: t for t in _load(loader)}
        tool = loaded[loader][name]
        output = tool.call_validated(tool.validate(arguments))
        return "ok", (output.content, to_jsonable_python(output.details, fallback=str))
    except ToolError as exc:
        return "tool_error", (type(exc).__name__, str(exc))
    except BaseException as exc:  # user code may raise anything; the parent words it as before
        return "error", (type(exc).__name__, str(exc))


def _load(loader: Loader) -> list[Tool]:
    if loader[0] == "module":
        return plugins.tools_from_module(loader[1])
    group, name = loader[1], loader[2]
    found = [ep for ep in plugins.entry_point_sources(group) if ep[1].name == name]
    return plugins.tools_from_entry_point(found[0][1], found[0][0])


def worker_pool() -> WorkerPool:
    """The current owner's pool of plugin workers (``SPARROW_PLUGIN_WORKERS`` of them, started when first needed)."""
    return resources().get("plugin workers", lambda: WorkerPool(_pool_size(), serve), WorkerPool.close)


"""The app's plugin workers, shared by every run."""
