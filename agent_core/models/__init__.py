"""Chat models: the protocol, the OpenAI-compatible client, and errors."""

from agent_core.models.base import ChatModel, Completion, Message, ModelRequest, TextChunk, ToolCall, complete
from agent_core.models.errors import ModelError
from agent_core.models.openai_compat import DEFAULT_MODEL, OpenAIChatModel

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
