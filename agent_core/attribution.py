"""Who started each run, added to a trace export (``SessionStore.run_starters`` gives the names).

JSON Lines: each ``run_started`` line gains a ``started_by`` key. Markdown: a closing "Who started each run"
table. OTLP/JSON is left as it is. Runs recorded before attribution existed have no name and are left out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from agent_core.trace_export import ExportFormat


def attribute(text: str, fmt: ExportFormat, starters: Mapping[str, str]) -> str:
    """``text`` (an export in ``fmt``) with who started each run, where known."""
    if not starters:
        return text
    if fmt == "jsonl":
        return "".join(_jsonl_line(line, starters) for line in text.splitlines(keepends=True))
    if fmt == "md":
        return text.rstrip("\n") + "\n\n" + _markdown_table(starters)
    return text


def _jsonl_line(line: str, starters: Mapping[str, str]) -> str:
    if '"run_started"' not in line:
        return line
    record = json.loads(line)
    who = starters.get(record.get("run_id", "")) if record.get("type") == "run_started" else None
    if who is None:
        return line
    ending = "\n" if line.endswith("\n") else ""
    return json.dumps({**record, "started_by": who}, ensure_ascii=False) + ending


def _markdown_table(starters: Mapping[str, str]) -> str:
    rows = [f"| `{run_id}` | {_cell(who)} |" for run_id, who in starters.items()]
    return "\n".join(["## Who started each run", "", "| Run | Started by |", "| --- | --- |", *rows, ""])


def _cell(value: str) -> str:
    """A table cell that cannot break the table (pipes, newlines, Markdown markup)."""
    return "".join("\\" + c if c in "\\`*_[]<>|#" else c for c in value.replace("\n", " "))
