"""Chat models: the protocol, the OpenAI-compatible client, and errors.

The OpenAI client is imported on first use of ``OpenAIChatModel`` (the openai package takes about a second).
"""

from agent_core.lazy_exports import lazy_exports
from agent_core.models.chat import (
    ChatModel,
    Completion,
    Message,
    ModelError,
    ModelRequest,
    TextChunk,
    ToolCall,
    complete,
)

__getattr__, __dir__ = lazy_exports(
    __name__,
    {"DEFAULT_MODEL": "agent_core.models.openai_compat", "OpenAIChatModel": "agent_core.models.openai_compat"},
)

__all__ = [
    "DEFAULT_MODEL",
    "ChatModel",
    "Completion",
    "Message",
    "ModelError",
    "ModelRequest",
    "OpenAIChatModel",
    "TextChunk",
    "ToolCall",
    "complete",
]
