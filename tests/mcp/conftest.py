"""MCP test fixtures: the SDK (or a clean skip), the demo server over stdio and HTTP, the reference servers."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_core.process_resources import free_port

SKIP_REASON = "the mcp extra is not installed (pip install -e '.[mcp]'; the dev extra includes it)"
DEMO = Path(__file__).with_name("demo_server.py")


def require_sdk() -> None:
    """Skip the calling test module unless the official MCP SDK is importable."""
    pytest.importorskip("mcp", reason=SKIP_REASON)


def reference_server(name: str) -> str:
    """Path of a reference server's command (installed by the dev extra), or skip saying what is missing."""
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip(f"{name} is not installed (pip install {name}; the dev extra includes it)")
    return found


def demo_entry(**settings: Any) -> dict[str, Any]:
    """An mcpServers entry that runs the demo server over stdio."""
    return {"command": sys.executable, "args": [str(DEMO)], **settings}


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    """Block until ``port`` accepts connections (fail if the process dies or ``timeout`` passes)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the demo HTTP server exited with code {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"the demo HTTP server did not listen on port {port} within {timeout:g} s")


@pytest.fixture
def servers() -> Iterator[Any]:
    """A private set of MCP connections, closed (servers stopped) after the test."""
    require_sdk()
    from agent_core.tools.mcp.tools import McpServers

    hub = McpServers()
    yield hub
    hub.close()


@pytest.fixture(scope="module")
def http_demo() -> Iterator[str]:
    """The demo server over streamable HTTP on 127.0.0.1 (a free port); yields its /mcp URL."""
    require_sdk()
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(DEMO), "http", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait(10)


@pytest.fixture(scope="module")
def sse_demo() -> Iterator[str]:
    """The demo server over the older HTTP+SSE transport on 127.0.0.1; yields its /sse URL."""
    require_sdk()
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(DEMO), "sse", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/sse"
    finally:
        process.kill()
        process.wait(10)


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A throwaway git repository with one commit and one untracked file."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.invalid"}
    env |= {"GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    (repo / "notes.txt").write_text("first\n", encoding="utf-8")
    for command in (["init", "-q"], ["add", "notes.txt"], ["commit", "-q", "-m", "Add the first notes"]):
        subprocess.run(["git", *command], cwd=repo, env=env, check=True, timeout=30)
    (repo / "draft.txt").write_text("not yet added\n", encoding="utf-8")
    return repo
