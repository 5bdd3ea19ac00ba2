"""The Sparrow command line: ``python -m agent_core`` (``sparrow``), one module per command group."""

from agent_core.cli.main import main

__all__ = ["main"]
