"""Command-line conventions: the program's name as it was invoked, ``--version``, and ``NO_COLOR``."""

from __future__ import annotations

import os
import sys
from importlib import metadata
from pathlib import Path
from typing import TextIO

DISTRIBUTION = "sparrow-agent"


def program_name(argv0: str | None = None) -> str:
    """``sparrow`` when run as the installed script, ``python -m agent_core`` when run as a module."""
    name = Path(sys.argv[0] if argv0 is None else argv0).name
    if not name or name in ("__main__.py", "-c", "-m") or name.endswith(".py"):
        return "python -m agent_core"
    return name


def version() -> str:
    """The installed version of Sparrow, or ``unknown`` when running from a source tree that is not installed."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"


def use_color(stream: TextIO, environ: dict[str, str] | None = None) -> bool:
    """Colour only on a terminal, and never when ``NO_COLOR`` is set to anything non-empty (no-color.org)."""
    env = os.environ if environ is None else environ
    return not env.get("NO_COLOR") and stream.isatty()
