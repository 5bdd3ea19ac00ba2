"""Runs in their surroundings: the tool catalogue (built-ins, web, memory, plugins, MCP), the settings a run is
made with, continuing stored sessions, runs in background threads, re-running a turn in a fork."""
