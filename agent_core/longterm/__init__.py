"""Long-term memory: notes that outlive a session, with a poisoning guard, search and remember/recall tools."""

from agent_core.longterm.store import MemoryNotFound, MemoryRecord, MemoryStore

__all__ = ["MemoryNotFound", "MemoryRecord", "MemoryStore"]
