"""The act half of a step: approvals for sensitive tools, the tool calls, and checks on what they return."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from typing import Any

from agent_core.engine.approval_policy import asks_first
from agent_core.engine.approvals import approval_key
from agent_core.engine.run_context import RunContext
from agent_core.events import ApprovalDecided, ApprovalRequested, Event, OutputFlagged, ToolFinished, ToolStarted
from agent_core.guards.json_limits import tame
from agent_core.guards.limits import CancelToken, Deadline, RunStopped
from agent_core.guards.masking import check_value
from agent_core.guards.taint import OUTSIDE_READ, Taint, source_of
from agent_core.tools.runner import CallRequest, CallResult, ToolRunner
from agent_core.tools.tool import Tool


class Acting:
    """Runs a step's tool calls for one run, yielding every event on the way."""

    def __init__(
        self, parts: RunContext, run_id: str, cancel: CancelToken, deadline: Deadline, taint: Taint | None = None
    ) -> None:
        self.parts, self.run_id, self.cancel, self.deadline = parts, run_id, cancel, deadline
        self.taint = taint or Taint()
        """The outside content this run has read so far (a resumed run starts from its recorded steps)."""
        settings = parts.settings
        self.runner = ToolRunner(
            parts.tools, timeout=settings.tool_timeout, max_output_chars=settings.max_observation_chars
        )

    def act(self, step: int, calls: Sequence[CallRequest]) -> Iterator[Event]:
        """Approve, start, run and check ``calls``: every event, their ToolFinished in call order."""
        denied: set[str] = set()
        for decided in self._approve(step, calls):
            if isinstance(decided, ApprovalDecided) and not decided.approved:
                denied.add(decided.call_id)
            yield decided
        for call in calls:
            yield ToolStarted(
                run_id=self.run_id, step=step, call_id=call.call_id, tool=call.name, arguments=tame(call.arguments)
            )
        allowed = [c for c in calls if c.call_id not in denied]
        reused = self._reused(step, allowed)
        results = self._started([c for c in allowed if c.call_id not in reused])
        finished: list[ToolFinished] = []
        for call in calls:
            if call.call_id in reused:  # a fork's recorded result: the tool is not called again
                yield reused[call.call_id]
                finished.append(reused[call.call_id])
                continue
            result = _denial(call) if call.call_id in denied else next(results)
            event, flagged = self._checked(step, call, result)
            if flagged is not None:
                yield flagged
            yield event
            finished.append(event)
        for event in finished:
            if event.outside:
                self.taint.add(step, event.outside)

    def _started(self, calls: Sequence[CallRequest]) -> Iterator[CallResult]:
        """The calls' results; every call is started at once, while ``OUTSIDE_READ`` says what the run has read."""
        token = OUTSIDE_READ.set(self.taint.summary())
        try:
            results = self.runner.run_each(calls, cancel=self.cancel, deadline=self.deadline)
            first = next(results, None)  # run_each submits every call before it returns the first result
        finally:
            OUTSIDE_READ.reset(token)
        if first is not None:
            yield first
            yield from results

    def _reused(self, step: int, calls: Sequence[CallRequest]) -> dict[str, ToolFinished]:
        recorded = self.parts.recorded
        if recorded is None:
            return {}
        return recorded.reused(self.run_id, step, calls, self.parts.tools, self.parts.settings.tool_approval)

    def _approve(self, step: int, calls: Sequence[CallRequest]) -> Iterator[ApprovalRequested | ApprovalDecided]:
        """Ask for (and wait on) the approvals the calls need; a denied call is one decided ``approved=False``."""
        for call in calls:
            tool = self.parts.tools.get(call.name)
            if tool is None or call.problem:
                continue
            reason = self._reason(tool, call)
            if reason is None and not asks_first(tool, self.parts.settings.tool_approval):
                continue
            common: dict[str, Any] = {"run_id": self.run_id, "step": step, "call_id": call.call_id, "tool": call.name}
            if not self.parts.settings.require_approval:
                yield ApprovalDecided(**common, approved=True, by="policy")
                continue
            yield ApprovalRequested(**common, arguments=call.arguments, reason=reason)
            waited_from = time.monotonic()
            approved = self.parts.approvals.wait(approval_key(self.run_id, step, call.call_id), self.cancel)
            self.deadline.extend(time.monotonic() - waited_from)  # a person's thinking time is not the agent's
            if approved is None:
                raise RunStopped("cancelled", f"cancelled while waiting for approval of {call.name}")
            yield ApprovalDecided(**common, approved=approved)

    def _reason(self, tool: Tool, call: CallRequest) -> str | None:
        """Why outside content makes this call ask (None when it does not, or the user trusts the tool outright)."""
        if self.parts.settings.tool_approval.get(tool.name) is False:
            return None
        return self.taint.reason(tool, call.arguments)

    def _checked(self, step: int, call: CallRequest, result: CallResult) -> tuple[ToolFinished, OutputFlagged | None]:
        output, details, findings = result.output, _json_safe(result.details), []
        check = self.parts.output_check
        if check is not None:
            checked = check(output, source="tool_output")
            output, findings = checked.text, list(checked.findings)
            if details is not None:
                details, more = check_value(details, check, source="tool_output")
                findings += more
        event = ToolFinished(
            run_id=self.run_id,
            step=step,
            call_id=call.call_id,
            tool=call.name,
            output=output,
            details=details,
            error=result.error,
            duration_ms=result.duration_ms,
            truncated=result.truncated,
            outside=self._source(call, result, details),
        )
        if not findings:
            return event, None
        flagged = OutputFlagged(
            run_id=self.run_id,
            step=step,
            source="tool_output",
            call_id=call.call_id,
            findings=tuple(_public(f.to_dict()) for f in findings),
        )
        return event, flagged

    def _source(self, call: CallRequest, result: CallResult, details: Any) -> str | None:
        tool = self.parts.tools.get(call.name)
        if tool is None or result.error is not None:
            return None
        return source_of(tool, call.arguments, details)


def _denial(call: CallRequest) -> CallResult:
    message = f"the user denied this call to {call.name}"
    return CallResult(f"Error: {message}. Do not retry it; answer with what you have or ask the user.", error=message)


def _public(finding: dict[str, Any]) -> dict[str, Any]:
    """A finding without offsets into a text that no longer exists in that form."""
    return {"kind": finding["kind"], "label": finding["label"], "masked": finding["masked"]}


def _json_safe(value: Any) -> Any:
    """Details as plain JSON that can be stored, exported and imported again (see ``json_limits.tame``)."""
    if value is None or isinstance(value, (str, bool)):
        return value
    try:
        return tame(json.loads(json.dumps(tame(value), default=str)))
    except (TypeError, ValueError, RecursionError):
        return str(value)[:2000]
