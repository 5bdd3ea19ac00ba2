"""Custom tools without editing Sparrow: load a user's own ``@tool`` functions from modules or entry points.

Write a tool module
-------------------
Any importable module (or a plain ``.py`` file) with functions decorated by ``@tool``::

    # mytools.py
    from agent_core.tools import tool

    @tool
    def word_count(text: str) -> str:
        '''Count the words in a text.

        Args:
            text: The text whose words are counted.
        '''
        return str(len(text.split()))

Every public ``Tool`` in the module is taken, in the order they are defined. To choose exactly which ones
(or to build tools in a loop), define ``TOOLS = [word_count, ...]`` in the module: then only that list counts.
Mark risky tools with ``@tool(needs_approval=True)``; give slow ones ``@tool(timeout=...)``.

Register it, either way
-----------------------
- By module path: ``SPARROW_TOOLS="mytools,mypkg.more_tools,/path/to/file.py"`` (comma-separated module names
  importable on ``sys.path``, or paths to ``.py`` files).
- By entry point, from an installed package's ``pyproject.toml``::

      [project.entry-points."sparrow.tools"]
      mytools = "mypkg.tools"               # a module: every tool in it (or its TOOLS list)
      # also: "mypkg.tools:TOOLS" (a list), "mypkg.tools:word_count" (one tool),
      #       "mypkg.tools:make_tools" (a function returning tools)

Problems (import errors, a module without tools, two tools with one name) are reported per source, naming the
module or entry point and what went wrong; the other sources still load.

Running them
------------
The app's catalogue runs plugin tools (``isolate``) in a small pool of worker processes (``SPARROW_PLUGIN_WORKERS``,
2 by default), started once and reused: a thread cannot be stopped from outside, so a plugin tool that hangs or
loops forever would keep a thread and its CPU share for the life of the app. Each worker loads the plugin the way
the app did (by module, file or entry point), validates the arguments again and returns the ``ToolOutput``; an
exception comes back with its type name and message, so events and errors read as in the app's process. A call
still running at the budget the runner gave it is killed with its worker, and a fresh worker takes its place on
the next call. ``SPARROW_PLUGIN_PROCESSES=0`` keeps plugins in the app's process (to debug one).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import math
import multiprocessing
import os
import sys
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic_core import to_jsonable_python

from agent_core.env_settings import env_settings
from agent_core.process_resources import resources
from agent_core.tools.runner import CALL_BUDGET
from agent_core.tools.tool import Tool, ToolError, ToolOutput

ENTRY_POINT_GROUP = "sparrow.tools"
GRACE_S = 0.5
"""Beyond the budget, how long a worker may take to answer before it is killed (the runner has moved on)."""
Loader = tuple[str, ...]
"""How a worker finds the plugin: ``("module", spec)`` or ``("entry_point", group, name)``."""


class PluginError(Exception):
    """A tool source could not be loaded; the message names the source and the problem."""


@dataclass(frozen=True)
class LoadedTools:
    """Tools found in plugins, where each came from, and the problems met on the way."""

    tools: tuple[Tool, ...] = ()
    origins: Mapping[str, str] = field(default_factory=dict)
    """Tool name -> its source, e.g. "module mypkg.tools" or "entry point mytools (mypkg 1.0)"."""
    errors: tuple[str, ...] = ()
    """One sentence per source that failed; those sources contributed no tools."""
    loaders: Mapping[str, Loader] = field(default_factory=dict)
    """Tool name -> how a worker process loads it again."""

    def raise_errors(self) -> None:
        """Raise PluginError listing every problem, if there was any."""
        if self.errors:
            raise PluginError("; ".join(self.errors))


def modules_from_env(environ: Mapping[str, str] | None = None) -> list[str]:
    """The module names and file paths listed in SPARROW_TOOLS (comma-separated)."""
    return list(env_settings(environ).sparrow_tools)


def tools_from_module(spec: str) -> list[Tool]:
    """The tools of a module named ``spec`` ("mypkg.tools") or in a file ("path/to/tools.py")."""
    origin = f"module {spec}"
    return tools_from_object(import_module(spec), origin)


def import_module(spec: str) -> ModuleType:
    """Import a module by dotted name or ``.py`` path; PluginError with the cause when that fails."""
    try:
        if spec.endswith(".py") or os.sep in spec or "/" in spec:
            return _import_file(Path(spec).expanduser())
        return importlib.import_module(spec)
    except PluginError:
        raise
    except Exception as exc:  # user code may raise anything while importing
        raise PluginError(f"module {spec}: cannot import it ({type(exc).__name__}: {exc})") from exc


def _import_file(path: Path) -> ModuleType:
    if not path.is_file():
        raise PluginError(f"module {path}: no such file")
    name = f"sparrow_user_tools.{path.stem}"
    loader_spec = importlib.util.spec_from_file_location(name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise PluginError(f"module {path}: not a Python file that can be imported")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[name] = module
    try:
        loader_spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def tools_from_object(obj: Any, origin: str) -> list[Tool]:
    """Tools from a module, a Tool, a list of Tools, or a function returning one of those."""
    if isinstance(obj, Tool):
        return [obj]
    if isinstance(obj, ModuleType):
        return _module_tools(obj, origin)
    if isinstance(obj, list | tuple | set | frozenset):
        return _checked_list(list(obj), origin)
    if callable(obj):
        try:
            made = obj()
        except Exception as exc:
            raise PluginError(f"{origin}: the tool factory raised {type(exc).__name__}: {exc}") from exc
        if isinstance(made, Tool):
            return [made]
        if isinstance(made, list | tuple):
            return _checked_list(list(made), origin)
        raise PluginError(f"{origin}: the tool factory returned {type(made).__name__}, not a list of tools")
    raise PluginError(f"{origin}: {type(obj).__name__} is not a tool, a list of tools or a module")


def _module_tools(module: ModuleType, origin: str) -> list[Tool]:
    if "TOOLS" in vars(module):
        tools = tools_from_object(vars(module)["TOOLS"], f"{origin} (TOOLS)")
    else:
        found = [v for k, v in vars(module).items() if isinstance(v, Tool) and not k.startswith("_")]
        tools = list({id(t): t for t in found}.values())
    if not tools:
        raise PluginError(f"{origin}: no tools found; decorate functions with @tool or list them in TOOLS = [...]")
    return tools


def _checked_list(items: list[Any], origin: str) -> list[Tool]:
    for position, item in enumerate(items):
        if not isinstance(item, Tool):
            raise PluginError(
                f"{origin}: item {position} is {type(item).__name__} {item!r:.60}, not a Tool; decorate it with @tool"
            )
    if not items:
        raise PluginError(f"{origin}: the list of tools is empty")
    return items


def entry_point_sources(group: str = ENTRY_POINT_GROUP) -> list[tuple[str, importlib.metadata.EntryPoint]]:
    """(origin, entry point) for every installed entry point in ``group``, sorted by name for a stable order."""
    found = sorted(importlib.metadata.entry_points(group=group), key=lambda ep: (ep.name, ep.value))
    return [(_entry_origin(ep), ep) for ep in found]


def _entry_origin(ep: importlib.metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    owner = f" of {dist.name} {dist.version}" if dist is not None else ""
    return f"entry point {ep.name} ({ep.value}){owner}"


def tools_from_entry_point(ep: importlib.metadata.EntryPoint, origin: str | None = None) -> list[Tool]:
    """Load one entry point and return its tools; PluginError naming it when that fails."""
    where = origin or _entry_origin(ep)
    try:
        obj = ep.load()
    except Exception as exc:
        raise PluginError(f"{where}: cannot load it ({type(exc).__name__}: {exc})") from exc
    return tools_from_object(obj, where)


def load_plugins(
    modules: Iterable[str] | None = None,
    *,
    entry_points: bool = True,
    group: str = ENTRY_POINT_GROUP,
    taken: Iterable[Tool] = (),
) -> LoadedTools:
    """Load tools from ``modules`` (default: SPARROW_TOOLS) and the entry points; never raises for one bad source.

    ``taken`` are tools already registered (the built-ins): a plugin tool that is the very same object is
    skipped quietly, one that only shares the name is reported as a duplicate.
    """
    names = modules_from_env() if modules is None else list(modules)
    sources: list[tuple[str, Any]] = [(f"module {m}", m) for m in names]
    if entry_points:
        sources.extend(entry_point_sources(group))
    registry = _Registry(taken)
    for origin, source in sources:
        try:
            tools = tools_from_module(source) if isinstance(source, str) else tools_from_entry_point(source, origin)
            registry.add_all(tools, origin)
            loader = ("module", source) if isinstance(source, str) else ("entry_point", group, source.name)
            registry.loaders.update(dict.fromkeys((t.name for t in tools if t in registry.tools), loader))
        except PluginError as exc:
            registry.errors.append(str(exc))
    return LoadedTools(tuple(registry.tools), dict(registry.origins), tuple(registry.errors), dict(registry.loaders))


class _Registry:
    """Collects tools from several sources, refusing a source whose tool names clash with earlier ones."""

    def __init__(self, taken: Iterable[Tool]) -> None:
        self.owners: dict[str, tuple[Tool, str]] = {t.name: (t, "the built-in tools") for t in taken}
        self.tools: list[Tool] = []
        self.origins: dict[str, str] = {}
        self.errors: list[str] = []
        self.loaders: dict[str, Loader] = {}

    def add_all(self, tools: list[Tool], origin: str) -> None:
        fresh: list[Tool] = []
        for tool in tools:
            owner = self.owners.get(tool.name)
            if owner is not None and owner[0] is not tool:
                raise PluginError(f"{origin}: a tool named {tool.name!r} already comes from {owner[1]}")
            twin = next((t for t in fresh if t.name == tool.name), None)
            if twin is not None and twin is not tool:
                raise PluginError(f"{origin}: two different tools are named {tool.name!r}")
            if owner is None and twin is None:
                fresh.append(tool)
        for tool in fresh:
            self.owners[tool.name] = (tool, origin)
            self.tools.append(tool)
            self.origins[tool.name] = origin


# --- running them in worker processes ------------------------------------------------------------------------------


def isolation_on(environ: Mapping[str, str] | None = None) -> bool:
    """False when ``SPARROW_PLUGIN_PROCESSES=0``: plugins then run in the app's own process."""
    return env_settings(environ).sparrow_plugin_processes


class IsolatedTool(Tool):
    """A plugin tool with the same name, schema and marks, whose calls run in a worker process."""

    def __init__(self, inner: Tool, loader: Loader, pool: WorkerPool) -> None:
        self.__dict__.update(vars(inner))  # the same name, description, schema, approval mark and timeout
        self.inner = inner
        self.loader = loader
        self.pool = pool
        self.inline = False

    def call_validated(self, kwargs: dict[str, Any]) -> ToolOutput:
        """Run the call in a worker, killed past the runner's budget; raises what the tool raised."""
        budget = CALL_BUDGET.get()
        limit = None if budget is None or math.isinf(budget) else budget
        return self.pool.call(self.loader, self.name, to_jsonable_python(kwargs), limit)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the plugin function directly in this process (notebooks, tests)."""
        return self.inner(*args, **kwargs)


class RemoteError(Exception):
    """Stands for an exception raised in a worker; shown as ``<its type name>: <message>`` like the original."""


class _Worker:
    """One child process and the parent's end of its pipe."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")  # never fork a threaded app
        self.conn, child = context.Pipe()
        self.process = context.Process(target=serve, args=(child,), name="sparrow-plugin", daemon=True)
        self.process.start()
        child.close()

    def kill(self) -> None:
        self.process.kill()
        self.process.join(5)
        self.conn.close()


class WorkerPool:
    """Up to ``size`` workers, each started on first need and reused; a call waits for a free one."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.idle: list[_Worker] = []
        self.started = 0
        self.lock = threading.Condition()

    def call(self, loader: Loader, name: str, arguments: dict[str, Any], budget: float | None) -> ToolOutput:
        """Run tool ``name`` of ``loader`` on a worker; kill the worker if no answer came within ``budget``."""
        worker = self._take()
        try:
            worker.conn.send((loader, name, arguments))
            if not worker.conn.poll(None if budget is None else budget + GRACE_S):
                worker.kill()
                worker = None
                raise TimeoutError(f"{name} was stopped: it ran past its time limit")
            kind, value = worker.conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            if worker is not None:
                worker.kill()
            worker = None
            raise RemoteError(f"the plugin process running {name} ended without an answer") from None
        finally:
            self._give(worker)
        return _outcome(kind, value)

    def close(self) -> None:
        """Stop the idle workers (a busy one goes back to the pool; every worker is a daemon, ended at exit)."""
        with self.lock:
            idle, self.idle = self.idle, []
            self.started -= len(idle)
        for worker in idle:
            worker.kill()

    def pids(self) -> list[int]:
        """Process ids of the idle workers (for tests and the curious)."""
        with self.lock:
            return [w.process.pid for w in self.idle if w.process.pid is not None]

    def _take(self) -> _Worker:
        with self.lock:
            while not self.idle and self.started >= self.size:
                self.lock.wait()
            if self.idle:
                return self.idle.pop()
            self.started += 1
        try:
            return _Worker()
        except BaseException:
            self._give(None)
            raise

    def _give(self, worker: _Worker | None) -> None:
        with self.lock:
            if worker is None:
                self.started -= 1  # killed or never started: a fresh one takes its place when needed
            else:
                self.idle.append(worker)
            self.lock.notify()


def _outcome(kind: str, value: Any) -> ToolOutput:
    if kind == "ok":
        content, details = value
        return ToolOutput(content, details)
    error_type, message = value
    if kind == "tool_error":
        raise ToolError(message)
    raise type(error_type, (RemoteError,), {})(message)  # "calc raised ValueError: ..." reads as it did


def isolate(loaded: LoadedTools) -> list[Tool]:
    """The loaded plugin tools, each running in the worker pool (as they are with ``SPARROW_PLUGIN_PROCESSES=0``)."""
    if not isolation_on():
        return list(loaded.tools)
    return [
        IsolatedTool(t, loaded.loaders[t.name], worker_pool()) if t.name in loaded.loaders else t for t in loaded.tools
    ]


def serve(conn: Connection) -> None:
    """A worker's loop, in each spawned child: load the asked plugin (once), run the call, send back the outcome."""
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
        return tools_from_module(loader[1])
    group, name = loader[1], loader[2]
    found = [ep for ep in entry_point_sources(group) if ep[1].name == name]
    return tools_from_entry_point(found[0][1], found[0][0])


def worker_pool() -> WorkerPool:
    """The current owner's pool of plugin workers (``SPARROW_PLUGIN_WORKERS`` of them, started when first needed)."""
    size = env_settings().sparrow_plugin_workers
    return resources().get("plugin workers", lambda: WorkerPool(size), WorkerPool.close)
