"""How fast the command line starts: ``--help``, ``sessions list`` and ``tools`` beside ``python -c pass``.

Each command runs ``--runs`` times in a fresh process, the commands taking turns, in an empty folder with its own
database (at the head revision after the first run) and no MCP servers; bytecode is compiled once beforehand, as
an installed package has it. Printed: the median wall time and the median CPU time (user + system) of each, and
each one's wall time minus that of ``python -c pass``. On a machine shared with other work the wall time grows with
the load while the CPU time barely moves: compare the CPU column there.

    python bench/cli_startup.py [--runs 7] [--tree PATH]   # PATH: another checkout to time the same way
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "--help": ["-m", "agent_core", "--help"],
    "sessions list": ["-m", "agent_core", "sessions", "list"],
    "tools": ["-m", "agent_core", "tools"],
}
TARGETS = {"--help": 0.3, "sessions list": 0.6, "tools": 0.6}
"""Issue 21 §5: seconds of wall time on a 2-core machine."""


def once(args: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, of the child) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], env=env, cwd=cwd, capture_output=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def environment(tree: Path, work: str, cache: str) -> dict[str, str]:
    """This environment without Sparrow's variables, pointed at ``tree`` and an empty data folder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARROW_", "OTEL_", "DATABASE_URL"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(PYTHONPATH=str(tree), PYTHONPYCACHEPREFIX=cache, SPARROW_DATA_DIR=work)
    return env


def main() -> None:
    """Time each command and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    options = parser.parse_args()
    work, cache = tempfile.mkdtemp(prefix="sparrow-cli-"), tempfile.mkdtemp(prefix="sparrow-pyc-")
    env = environment(options.tree, work, cache)
    for args in COMMANDS.values():
        once(args, env, work)  # bytecode compiled, the database created
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in COMMANDS}
    for _ in range(options.runs):
        for name, args in COMMANDS.items():
            times[name].append(once(args, env, work))
    floor = statistics.median(w for w, _ in times["python -c pass"])
    print(f"{'command':<16} {'wall':>7} {'cpu':>7} {'wall - pass':>12} {'target':>7}   ({options.runs} runs, medians)")
    for name, runs in times.items():
        wall, cpu = statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)
        target = f"{TARGETS[name]:.1f} s" if name in TARGETS else ""
        print(f"{name:<16} {wall:>6.2f}s {cpu:>6.2f}s {wall - floor:>11.2f}s {target:>7}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
