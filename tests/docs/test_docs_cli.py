"""The command-line examples of the docs pages run as written, against the fake LLM, so the pages cannot drift.

A runnable example is a ```console block: each ``$ `` line is a command, run by bash in a fresh folder with a fresh
data directory (a block's commands share one shell, so ``SESSION=$(...)`` carries on); the lines under a command
are what it must print (each found in its stdout or stderr; a trailing ``…`` marks an elided end). A command
exits 0 unless a line ``[exit N]`` under it says otherwise. The model is the rule-driven fake LLM that the app
tests use (``agent_core.testing.rule_llm``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from agent_core.testing import FakeOpenAIServer
from agent_core.testing.rule_llm import rule_reply

TOP = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```console\n(.*?)^```", re.S | re.M)


@dataclass
class Command:
    """One ``$`` line of a console block and the lines shown under it."""

    line: str
    shown: list[str] = field(default_factory=list)
    exit_code: int = 0


def console_blocks(text: str) -> list[list[Command]]:
    """The console blocks of a page, each as its commands."""
    blocks = []
    for body in BLOCK.findall(text):
        commands: list[Command] = []
        for line in body.splitlines():
            if line.startswith("$ "):
                commands.append(Command(line[2:]))
            elif code := re.fullmatch(r"\[exit (\d+)\]", line.strip()):
                commands[-1].exit_code = int(code[1])
            elif line.strip() and commands:
                commands[-1].shown.append(line.strip().removesuffix("…"))
        blocks.append(commands)
    return blocks


PAGES = sorted(p for p in (TOP / "docs").glob("*.md") if console_blocks(p.read_text(encoding="utf-8")))


def run_block(commands: list[Command], where: Path, env: dict[str, str]) -> list[tuple[int, str]]:
    """Run the commands in one bash, in ``where``: each one's exit code and its stdout and stderr together."""
    script = "".join(f"{{ {c.line} ; }} >out{i} 2>&1; echo $? >rc{i}\n" for i, c in enumerate(commands))
    subprocess.run(["bash", "-c", script], cwd=where, env=env, timeout=540, check=True)
    return [(int((where / f"rc{i}").read_text()), (where / f"out{i}").read_text()) for i in range(len(commands))]


def test_the_reader_finds_commands_and_what_they_print() -> None:
    text = "```console\n$ echo hi\nhi\n$ false\n[exit 1]\n```\n```bash\n$ not this\n```\n"
    assert console_blocks(text) == [[Command("echo hi", ["hi"]), Command("false", [], 1)]]


def test_the_docs_have_runnable_examples() -> None:
    assert {p.name for p in PAGES} >= {"cli.md", "memory.md", "showing-runs.md", "traces.md"}


EXAMPLES = [(page, n, block) for page in PAGES for n, block in enumerate(console_blocks(page.read_text("utf-8")), 1)]


@pytest.mark.timeout(600)  # a dozen cold starts of the CLI: minutes on a busy two-core machine
@pytest.mark.parametrize(("page", "number", "block"), EXAMPLES, ids=[f"{p.name}-{n}" for p, n, _ in EXAMPLES])
def test_a_console_example_runs_as_shown(page: Path, number: int, block: list[Command], tmp_path: Path) -> None:
    with FakeOpenAIServer(rule_reply) as server:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "SPARROW_", "OTEL_", "DATABASE_"))},
            "OPENAI_BASE_URL": server.base_url,
            "OPENAI_API_KEY": "sk-docs-example",
            "SPARROW_DATA_DIR": str(tmp_path / "data"),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONPATH": str(TOP),
        }
        for command, (code, output) in zip(block, run_block(block, tmp_path, env), strict=True):
            said = f"{page.name}, block {number}: `{command.line}` exited {code} and printed:\n{output}"
            assert code == command.exit_code, said
            assert [line for line in command.shown if line not in output] == [], said
