"""Runs in their surroundings: the environment's settings (env_settings), what runs beside them and its owner
(process_resources), the tool catalogue (built-ins, web, memory, plugins, MCP), continuing stored sessions, runs in
background threads, re-running a turn in a fork."""
