"""What runs beside the agent and must be closed: MCP servers, trace senders, the local model, plugin workers.

Each is opened on first use through :func:`resources` and belongs to one owner, which closes them all together,
last opened first. The CLI owns one per command (``with owning():`` around it, so a command's servers stop before
it returns); code outside any ``owning`` block (the app's server, a script using the library) shares the
process's owner, closed when the interpreter exits. A server started beside the agent (the local model, a test
database) listens on a ``free_port``.
"""

from __future__ import annotations

import atexit
import socket
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")


class Resources:
    """Named resources, each opened by ``get`` on first use and closed by ``close`` (or at the end of ``with``)."""

    def __init__(self) -> None:
        self._opened: dict[str, tuple[Any, Callable[[Any], None]]] = {}
        self._lock = threading.RLock()  # opening one resource may get another

    def get(self, name: str, open_: Callable[[], T], close: Callable[[T], None]) -> T:
        """The resource ``name``, opened now with ``open_`` if this owner has none; ``close`` ends it."""
        with self._lock:
            if name not in self._opened:
                self._opened[name] = (open_(), close)
            return self._opened[name][0]

    def names(self) -> list[str]:
        """The resources open now, in the order they were opened."""
        with self._lock:
            return list(self._opened)

    def close(self) -> None:
        """Close every resource, last opened first; one that fails to close does not keep the others open."""
        with self._lock:
            opened, self._opened = list(self._opened.items()), {}
        for name, (value, close) in reversed(opened):
            try:
                close(value)
            except Exception as exc:  # closing happens on the way out: say what failed and go on
                # a warning, not a log record: importing logging would cost every command (--help included) 5 ms
                warnings.warn(f"could not close {name}: {type(exc).__name__}: {exc}", RuntimeWarning, stacklevel=1)

    def __enter__(self) -> Resources:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


_owners: list[Resources] = []
_process: list[Resources] = []
_lock = threading.Lock()


def resources() -> Resources:
    """The current owner: the innermost ``owning`` block's, else the process's (closed at interpreter exit)."""
    with _lock:
        if _owners:
            return _owners[-1]
        if not _process:
            _process.append(Resources())
            atexit.register(_process[0].close)
        return _process[0]


@contextmanager
def owning(owner: Resources | None = None) -> Iterator[Resources]:
    """Make ``owner`` (a new one by default) own what is opened inside the block, from any thread; close it after.

    Blocks nest (the innermost owns). The owner is the process's, not the thread's, so that the threads a command
    starts (tool calls, experiment units) open into it too: one command at a time per process, as the CLI runs.
    """
    owner = owner or Resources()
    with _lock:
        _owners.append(owner)
    try:
        yield owner
    finally:
        with _lock:
            _owners.remove(owner)
        owner.close()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
