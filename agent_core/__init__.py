"""Sparrow's engine: a transparent ReAct agent that emits typed events. No Streamlit in here."""

from agent_core.agent import Agent, AgentSettings
from agent_core.context import ConversationMemory
from agent_core.events import (
    Event,
    FinalAnswer,
    ModelDelta,
    ModelFinished,
    RunFinished,
    RunResumed,
    RunStarted,
    StepStarted,
    ToolFinished,
    ToolStarted,
    Usage,
    event_from_dict,
    final_answer,
)
from agent_core.limits import CancelToken
from agent_core.models import ChatModel, ModelError, OpenAIChatModel
from agent_core.tools import Tool, ToolError, ToolOutput, builtin_tools, tool

__all__ = [
    "Agent",
    "AgentSettings",
    "CancelToken",
    "ChatModel",
    "ConversationMemory",
    "Event",
    "FinalAnswer",
    "ModelDelta",
    "ModelError",
    "ModelFinished",
    "OpenAIChatModel",
    "RunFinished",
    "RunResumed",
    "RunStarted",
    "StepStarted",
    "Tool",
    "ToolError",
    "ToolFinished",
    "ToolOutput",
    "ToolStarted",
    "Usage",
    "builtin_tools",
    "event_from_dict",
    "final_answer",
    "tool",
]
