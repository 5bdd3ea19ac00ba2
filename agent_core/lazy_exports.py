"""Names a package exports but imports on first use (PEP 562), so each command loads only what it needs."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, origins: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__``: ``origins`` maps each exported name to the module defining it.

    Typical use, at the end of a package's ``__init__.py``::

        __getattr__, __dir__ = lazy_exports(__name__, {"Agent": "agent_core.engine.agent"})
    """

    def __getattr__(name: str) -> Any:
        origin = origins.get(name)
        if origin is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(origin), name)
        setattr(sys.modules[package], name, value)  # the next lookup is a plain attribute
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | origins.keys())

    return __getattr__, __dir__


def deferred(origin: str, name: str) -> Callable[..., Any]:
    """A function that imports ``origin`` when first called and calls its ``name`` (a command's handler: the
    module, and what it imports, is loaded only when that command runs)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(origin), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``{origin}.{name}``, imported on first call."
    return call
