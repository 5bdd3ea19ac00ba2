"""Command-line conventions: the program's name as it was invoked and ``--version`` (``NO_COLOR``: ``terminal``)."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

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
