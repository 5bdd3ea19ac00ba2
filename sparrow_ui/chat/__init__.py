"""The Chat page's parts: the conversation column, the live turn, each turn's actions, run control, the session
controls, the example sessions on offer."""
