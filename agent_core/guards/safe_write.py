"""Writing a command's output to ``-o PATH``: through links and special files, never over them.

- ``-`` means standard output.
- A regular file (or a new one) is replaced atomically: a temporary file beside it, then a rename, so a
  reader never sees half a file. An existing file keeps its permission bits; a new one gets the usual
  ``0666`` less the umask (not the ``0600`` of a temporary file).
- A symbolic link is followed: its target is written (the link stays a link).
- A FIFO or a character device (``/dev/null``, ``/dev/stdout``, a terminal) is opened and written in place,
  never replaced by a regular file.
- A directory, a socket or a block device is refused with one sentence, as is a link loop.
"""

from __future__ import annotations

import os
import secrets
import stat
import sys
from pathlib import Path
from typing import BinaryIO


class OutputRefused(OSError):
    """The output path cannot be written; the message is one sentence naming the path and why."""


def write_output(target: str | os.PathLike[str], data: bytes, *, stdout: BinaryIO | None = None) -> str:
    """Write ``data`` to ``target`` (``-``: standard output); returns what was written to, for a message."""
    if str(target) == "-":
        out = stdout or sys.stdout.buffer
        out.write(data)
        out.flush()
        return "standard output"
    path = _resolved(Path(target))
    try:
        info = path.stat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise OutputRefused(f"cannot write {target}: {exc.strerror or exc}") from None
    if info is not None and (stat.S_ISFIFO(info.st_mode) or stat.S_ISCHR(info.st_mode)):
        _write_in_place(path, data, target)
    elif info is None or stat.S_ISREG(info.st_mode):
        _replace_atomically(path, data, None if info is None else stat.S_IMODE(info.st_mode), target)
    else:
        raise OutputRefused(f"cannot write {target}: it is {_kind(info.st_mode)}, not a file")
    return str(target)


def _resolved(path: Path) -> Path:
    """The path with every symbolic link followed; a loop is refused."""
    try:
        return Path(os.path.realpath(path, strict=False))
    except OSError as exc:
        raise OutputRefused(f"cannot write {path}: {exc.strerror or exc}") from None


def _write_in_place(path: Path, data: bytes, shown: object) -> None:
    try:
        with open(path, "wb", buffering=0) as handle:
            handle.write(data)
    except OSError as exc:
        raise OutputRefused(f"cannot write {shown}: {exc.strerror or exc}") from None


def _replace_atomically(path: Path, data: bytes, mode: int | None, shown: object) -> None:
    tmp = path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # 0o666 here is narrowed by the umask, as for any new file; an existing file's mode is copied after
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OutputRefused(f"cannot write {shown}: {exc.strerror or exc}") from None


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISBLK(mode):
        return "a block device"
    return "a special file"
