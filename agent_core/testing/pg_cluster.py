"""A throwaway PostgreSQL cluster for tests and benchmarks: initdb into a temporary folder, 127.0.0.1, a free port.

PostgreSQL refuses to run as root, so when this process is root the server runs as an unprivileged system user
(``nobody`` unless ``SPARROW_PG_USER`` names another) through ``runuser``. Every step has a timeout: a cluster
that cannot start raises ``ClusterError`` with the server's log, it never hangs.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

from agent_core.process_resources import free_port

SUPERUSER = "sparrow"
"""The cluster's superuser (trust authentication on 127.0.0.1 only)."""
START_TIMEOUT_S = 60


class ClusterError(RuntimeError):
    """The throwaway cluster could not be created or started."""


def find_bin_dir() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``: ``$SPARROW_PG_BIN``, PATH, or Debian's newest version."""
    candidates = [os.environ.get("SPARROW_PG_BIN", "")]
    on_path = shutil.which("initdb")
    candidates += [str(Path(on_path).resolve().parent)] if on_path else []
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version_key, reverse=True)
    for folder in filter(None, candidates):
        if (Path(folder) / "initdb").is_file() and (Path(folder) / "pg_ctl").is_file():
            return Path(folder)
    return None


def _version_key(path: str) -> int:
    digits = Path(path).parent.name
    return int(digits) if digits.isdigit() else 0


class Cluster:
    """One PostgreSQL server in a temporary folder; ``url(name)`` gives a SQLAlchemy URL for a database of it."""

    def __init__(self, bin_dir: Path, *, user: str | None = None, durable: bool = False) -> None:
        self.bin_dir = bin_dir
        self.durable = durable
        """False (tests): fsync off, faster; True (benchmarks): PostgreSQL's default, crash-safe settings."""
        self.port = free_port()
        self.os_user = user or os.environ.get("SPARROW_PG_USER") or "nobody"
        self.root = Path(tempfile.mkdtemp(prefix="sparrow-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"

    def url(self, database: str = "postgres") -> str:
        """``postgresql+psycopg://sparrow@127.0.0.1:PORT/database``."""
        return f"postgresql+psycopg://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def socket_url(self, database: str = "postgres") -> str:
        """The same database over the server's Unix socket (no TCP)."""
        return f"postgresql+psycopg://{SUPERUSER}@/{database}?host={self.root}&port={self.port}"

    def start(self) -> Cluster:
        """initdb and start the server; raises ClusterError (with the log's tail) if either fails."""
        uid = pwd.getpwnam(self.os_user) if os.geteuid() == 0 else None
        if uid is not None:
            os.chown(self.root, uid.pw_uid, uid.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8", "--no-sync")
        self.log.touch()
        if uid is not None:
            os.chown(self.log, uid.pw_uid, uid.pw_gid)
        return self.restart()

    def halt(self) -> None:
        """Stop the server at once, as a crash would, keeping its data (``restart`` brings it back)."""
        self._run("pg_ctl", "stop", "-m", "immediate", "-w", "-t", "30", "-D", str(self.data))

    def restart(self) -> Cluster:
        """Start the server of an initialised cluster (after ``halt``)."""
        options = f"-h 127.0.0.1 -p {self.port} -k {self.root}"
        options += "" if self.durable else " -c fsync=off -c full_page_writes=off"
        self._run(
            "pg_ctl",
            "start",
            "-w",
            "-t",
            str(START_TIMEOUT_S),
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-o",
            options,
        )
        return self

    def stop(self) -> None:
        """Stop the server (fast shutdown) and delete its folder."""
        try:
            self._run("pg_ctl", "stop", "-m", "fast", "-w", "-t", "30", "-D", str(self.data))
        except ClusterError:
            pass
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self.bin_dir / tool), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", self.os_user, "--", *command]
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=START_TIMEOUT_S + 30, cwd=self.root, check=False
            )
        except subprocess.TimeoutExpired as exc:
            raise ClusterError(f"{tool} did not finish within {exc.timeout:.0f} s") from exc
        if done.returncode != 0:
            log_tail = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise ClusterError(f"{tool} failed ({done.returncode}): {done.stderr.strip()[-2000:]}\n{log_tail}")
