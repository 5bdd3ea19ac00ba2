"""Runs in their surroundings: the tool catalogue (built-ins, web, memory, plugins, MCP), the settings a run is
made with, runs of stored sessions (continued, resumed, rerun in a fork, watched live), forks and re-samples.

``EXAMPLE_KEY`` is here, where both the examples and the rerun that drops it can read it without importing the
engine (``sessions list`` tells the examples apart from the user's own sessions)."""

EXAMPLE_KEY = "sparrow_example"
"""The settings key that marks a session as a shipped example (its value is the example's name): a rerun is none."""
