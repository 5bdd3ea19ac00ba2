"""Who started each run, in the text exports (``SessionStore.log.run_starters`` gives the names).

JSON Lines: each ``run_started`` line gains a ``started_by`` key. Markdown: a closing "Who started each run"
table. (The HTML report and the OpenTelemetry spans name the starter themselves: ``to_html``/``build_spans``
take the same mapping.) Runs recorded before attribution existed have no name and are left out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from agent_core.guards import json_limits

Starters = Mapping[str, str]
"""Run id → who started the run (an email, else an OIDC subject, else ``local``)."""


def jsonl_with_starters(text: str, starters: Starters) -> str:
    """JSON Lines ``text`` whose ``run_started`` lines name their run's starter, where known."""
    if not starters:
        return text
    return "".join(_jsonl_line(line, starters) for line in text.splitlines(keepends=True))


def markdown_with_starters(text: str, starters: Starters) -> str:
    """A Markdown report with a closing table of who started each run (unchanged when no run has a name)."""
    if not starters:
        return text
    rows = [f"| `{run_id}` | {_cell(who)} |" for run_id, who in starters.items()]
    table = ["## Who started each run", "", "| Run | Started by |", "| --- | --- |", *rows, ""]
    return text.rstrip("\n") + "\n\n" + "\n".join(table)


def _jsonl_line(line: str, starters: Starters) -> str:
    if '"run_started"' not in line:
        return line
    record = json_limits.loads(line)
    who = starters.get(record.get("run_id", "")) if record.get("type") == "run_started" else None
    if who is None:
        return line
    ending = "\n" if line.endswith("\n") else ""
    return json.dumps({**record, "started_by": who}, ensure_ascii=False) + ending


def _cell(value: str) -> str:
    """A table cell that cannot break the table (pipes, newlines, Markdown markup)."""
    return "".join("\\" + c if c in "\\`*_[]<>|#" else c for c in value.replace("\n", " "))
