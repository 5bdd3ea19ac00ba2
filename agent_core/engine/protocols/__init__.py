"""The three ways Sparrow talks to models about tools: ReAct text, native tool calls, schema-constrained JSON."""

from agent_core.engine.protocols.json_reply import JsonSchemaProtocol
from agent_core.engine.protocols.native import NativeToolsProtocol
from agent_core.engine.protocols.protocol import AgentProtocol, Decision
from agent_core.engine.protocols.react import ReactTextProtocol

PROTOCOLS: dict[str, type[AgentProtocol]] = {
    "react": ReactTextProtocol,
    "tools": NativeToolsProtocol,
    "json": JsonSchemaProtocol,
}


def get_protocol(name: str | AgentProtocol) -> AgentProtocol:
    """A protocol instance from its name (``react``, ``tools`` or ``json``) or as given."""
    if isinstance(name, AgentProtocol):
        return name
    try:
        return PROTOCOLS[name]()
    except KeyError:
        raise ValueError(f"unknown protocol {name!r}; choose one of: {', '.join(PROTOCOLS)}") from None


__all__ = [
    "PROTOCOLS",
    "AgentProtocol",
    "Decision",
    "JsonSchemaProtocol",
    "NativeToolsProtocol",
    "ReactTextProtocol",
    "get_protocol",
]
