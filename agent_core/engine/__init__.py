"""The engine: Agent, the ReAct loop (loop.py) with its think and act halves, approvals, the context window and the
protocols."""
