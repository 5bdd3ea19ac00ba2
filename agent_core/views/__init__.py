"""The one fold of events into turns (transcript.py, turns.py) and what is read off it: metrics, timeline,
comparisons, numbers for people."""
