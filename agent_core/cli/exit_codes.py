"""The command line's exit codes and its one-line error (light: ``--help`` imports this and nothing heavier)."""

from __future__ import annotations

EXIT_OK, EXIT_RUN_FAILED, EXIT_USAGE, EXIT_CANCELLED = 0, 1, 2, 130


class CliError(Exception):
    """A failure reported as one line on stderr, with an exit code."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code
