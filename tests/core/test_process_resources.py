"""What runs beside the agent has an owner: opened on first use, closed with its owner, none made at import."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agent_core.process_resources import Resources, owning, resources

ROOT = Path(__file__).resolve().parents[2]


def test_an_owner_opens_each_resource_once_and_closes_them_last_opened_first() -> None:
    closed: list[str] = []

    def broken(_: object) -> None:
        closed.append("broken")
        raise RuntimeError("will not close")

    with pytest.warns(RuntimeWarning, match="could not close b: RuntimeError: will not close"), Resources() as owner:
        first = owner.get("a", list, lambda _: closed.append("a"))
        assert owner.get("a", list, lambda _: closed.append("again")) is first
        owner.get("b", object, broken)
        owner.get("c", dict, lambda _: closed.append("c"))
        assert owner.names() == ["a", "b", "c"]
    assert closed == ["c", "broken", "a"]  # a resource that fails to close does not keep the others open
    assert owner.names() == []


def test_what_is_opened_inside_owning_belongs_to_that_owner_from_any_thread() -> None:
    outside = resources()
    with owning() as owner:
        assert resources() is owner
        seen: list[Resources] = []
        worker = threading.Thread(target=lambda: seen.append(resources()))
        worker.start()
        worker.join()
        assert seen == [owner]
        owner.get("x", list, list.clear)
    assert resources() is outside and owner.names() == []


def test_importing_sparrow_opens_nothing_and_registers_nothing_for_exit() -> None:
    code = (
        "import atexit\n"
        "seen = []\n"
        "register = atexit.register\n"
        "atexit.register = lambda f, *a, **k: (seen.append(getattr(f, '__module__', '')), register(f, *a, **k))[1]\n"
        "import agent_core.runtime.catalog, agent_core.trace_export.sending, agent_core.tools.mcp.tools\n"
        "import agent_core.models.local_llama, agent_core.tools.plugins\n"
        "from agent_core import process_resources\n"
        "print([m for m in seen if m.startswith('agent_core')], process_resources._process)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[] []"
