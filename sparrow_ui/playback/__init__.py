"""Replaying saved runs without a model: the replay player (replay.py) and presentation mode."""
