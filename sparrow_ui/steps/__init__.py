"""How a turn and its steps are drawn, the same for live runs, reloaded sessions and replays: the chat renderer
(renderer.py) and the status chips of a step."""
