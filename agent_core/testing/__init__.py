"""Fakes shipped with the library: scripted and function-driven models, a fake OpenAI HTTP server, and a
rule-driven fake LLM for it (``rule_reply``) that app and browser tests talk to.

They exist for tests and benchmarks only; the app never presents them to users as an agent.
"""

from agent_core.testing.fake_models import FunctionModel, Reply, ScriptedModel, split_chunks
from agent_core.testing.fake_server import FakeOpenAIServer
from agent_core.testing.rule_llm import rule_reply

__all__ = ["FakeOpenAIServer", "FunctionModel", "Reply", "ScriptedModel", "rule_reply", "split_chunks"]
