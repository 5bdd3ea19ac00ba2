"""Presentation mode: the open session replayed one step at a time, full width, for a projector."""

from sparrow_ui.playback.presentation import presentation

presentation()
