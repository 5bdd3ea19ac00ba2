"""Sparrow's engine: a transparent ReAct agent that emits typed events. No Streamlit in here.

The names below are imported on first use, so ``python -m agent_core --help`` loads none of the engine.
"""

from agent_core.lazy_exports import lazy_exports

_EVENTS = "agent_core.events"
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Agent": "agent_core.engine.agent",
        "AgentSettings": "agent_core.engine.agent",
        "CancelToken": "agent_core.guards.limits",
        "ChatModel": "agent_core.models.chat",
        "ConversationMemory": "agent_core.engine.context_window",
        "ModelError": "agent_core.models.chat",
        "OpenAIChatModel": "agent_core.models.openai_compat",
        "Tool": "agent_core.tools",
        "ToolError": "agent_core.tools",
        "ToolOutput": "agent_core.tools",
        "builtin_tools": "agent_core.tools",
        "tool": "agent_core.tools",
        **dict.fromkeys(
            [
                "Event",
                "FinalAnswer",
                "ModelDelta",
                "ModelFinished",
                "RunFinished",
                "RunResumed",
                "RunStarted",
                "StepStarted",
                "ToolFinished",
                "ToolStarted",
                "Usage",
                "event_from_dict",
                "final_answer",
            ],
            _EVENTS,
        ),
    },
)

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
