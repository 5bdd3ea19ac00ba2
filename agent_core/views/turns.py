"""The shapes a session's events are folded into, by their earlier names (see ``agent_core.engine.state``)."""

from __future__ import annotations

from agent_core.engine.state import CallState as ActionView
from agent_core.engine.state import Request, WorkClock
from agent_core.engine.state import RunState as TurnView
from agent_core.engine.state import StepState as StepView

__all__ = ["ActionView", "Request", "StepView", "TurnView", "WorkClock"]
