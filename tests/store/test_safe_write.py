"""Every ``-o PATH`` writes through links and special files (or refuses them in one sentence); ``-o -`` is stdout."""

from __future__ import annotations

import io
import os
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_core.guards.safe_write import OutputRefused, write_output

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _umask() -> object:
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_dash_is_standard_output() -> None:
    out = io.BytesIO()
    assert write_output("-", b"hello", stdout=out) == "standard output"
    assert out.getvalue() == b"hello"


def test_a_new_file_gets_the_usual_mode_and_an_existing_file_keeps_its_own(tmp_path: Path) -> None:
    fresh = tmp_path / "sub" / "new.json"
    write_output(fresh, b"one")
    assert (fresh.read_bytes(), stat.S_IMODE(fresh.stat().st_mode)) == (b"one", 0o644)
    kept = tmp_path / "kept.json"
    kept.write_bytes(b"old")
    kept.chmod(0o640)
    write_output(kept, b"two")
    assert (kept.read_bytes(), stat.S_IMODE(kept.stat().st_mode)) == (b"two", 0o640)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_bytes(b"old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_output(link, b"new")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == b"new"


def test_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "later.json")
    write_output(link, b"data")
    assert link.is_symlink() and (tmp_path / "later.json").read_bytes() == b"data"


def test_a_fifo_is_written_in_place(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_output(fifo, b"through the pipe")
    reader.join(timeout=10)
    assert received == [b"through the pipe"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_character_device_is_written_in_place(tmp_path: Path) -> None:
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a private /dev/null
    except PermissionError:
        device = Path("/dev/null")  # without root the real one cannot be replaced anyway
    write_output(device, b"discarded")
    assert stat.S_ISCHR(device.stat().st_mode)
    assert stat.S_ISCHR(Path("/dev/null").stat().st_mode)


def test_directories_sockets_and_loops_are_refused_in_one_sentence(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "sock"))
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    messages = []
    for name in ("dir", "sock", "a"):
        with pytest.raises(OutputRefused) as caught:
            write_output(tmp_path / name, b"x")
        messages.append(str(caught.value))
    server.close()
    assert messages[0] == f"cannot write {tmp_path / 'dir'}: it is a directory, not a file"
    assert messages[1] == f"cannot write {tmp_path / 'sock'}: it is a socket, not a file"
    assert messages[2].startswith(f"cannot write {tmp_path / 'a'}: ") and "\n" not in messages[2]
    assert (tmp_path / "dir").is_dir() and (tmp_path / "a").is_symlink()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    chain=st.integers(0, 4),
    existing=st.booleans(),
    mode=st.sampled_from([0o600, 0o640, 0o644, 0o664, 0o400 | 0o200]),
    data=st.binary(max_size=2000),
)
def test_any_link_chain_ends_in_the_right_file(
    tmp_path: Path, chain: int, existing: bool, mode: int, data: bytes
) -> None:
    folder = tmp_path / f"c{chain}{int(existing)}{mode}{len(data)}"
    folder.mkdir(exist_ok=True)
    target = folder / "target"
    target.unlink(missing_ok=True)
    if existing:
        target.write_bytes(b"previous")
        target.chmod(mode)
    path = target
    for index in range(chain):
        link = folder / f"link{index}"
        link.unlink(missing_ok=True)
        link.symlink_to(path)
        path = link
    write_output(path, data)
    assert target.read_bytes() == data and not target.is_symlink()
    assert stat.S_IMODE(target.stat().st_mode) == (mode if existing else 0o644)
    assert all((folder / f"link{i}").is_symlink() for i in range(chain))


def sparrow(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "agent_core", *args], cwd=ROOT, capture_output=True, timeout=60)


def test_every_dash_o_in_the_cli_goes_through_the_helper(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'db.sqlite'}"
    from agent_core.store import SessionStore

    store = SessionStore.open(db)
    session = store.sessions.create(title="hello")
    store.close()
    target = tmp_path / "real.json"
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert sparrow("sessions", "export", session.id, "--db", db, "-o", str(link)).returncode == 0
    assert link.is_symlink() and b'"format": "sparrow.session"' in target.read_bytes()
    to_stdout = sparrow("sessions", "export", session.id, "--db", db, "-o", "-")
    assert to_stdout.stdout == target.read_bytes()
    trace = sparrow("sessions", "export-trace", session.id, "--db", db, "--format", "md", "-o", "-")
    assert trace.returncode == 0 and trace.stdout.startswith(b"# ")
    (tmp_path / "dir").mkdir()
    refused = sparrow("sessions", "export-trace", session.id, "--db", db, "-o", str(tmp_path / "dir"))
    assert refused.returncode != 0
    assert refused.stderr.decode() == f"sparrow: cannot write {tmp_path / 'dir'}: it is a directory, not a file\n"
    devnull = sparrow("sessions", "export", session.id, "--db", db, "-o", "/dev/null")
    assert devnull.returncode == 0 and stat.S_ISCHR(Path("/dev/null").stat().st_mode)
