"""The engine: Agent (agent.py), the ReAct loop (loop.py), the run's state folded once (state.py), the conversation
memory, repeats, approvals and the protocols."""
