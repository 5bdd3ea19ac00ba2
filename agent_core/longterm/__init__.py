"""Long-term memory: notes that outlive a session, with a poisoning guard, search and remember/recall tools.

The store (and SQLAlchemy with it) is imported on first use, so listing the memory tools needs no database.
"""

from agent_core.lazy_exports import lazy_exports

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "MemoryNotFound": "agent_core.longterm.memory",
        "MemoryRecord": "agent_core.longterm.memory",
        "MemoryStore": "agent_core.longterm.memory",
    },
)

__all__ = ["MemoryNotFound", "MemoryRecord", "MemoryStore"]
