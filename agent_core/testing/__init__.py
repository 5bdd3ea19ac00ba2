"""Fakes shipped with the library: scripted and function-driven models, and a fake OpenAI HTTP server.

They exist for tests and benchmarks only; the app never presents them to users as an agent.
"""

from agent_core.testing.models import FunctionModel, Reply, ScriptedModel, split_chunks
from agent_core.testing.server import FakeOpenAIServer

__all__ = ["FakeOpenAIServer", "FunctionModel", "Reply", "ScriptedModel", "split_chunks"]
