"""Tests of metrics, pricing, formatting, timeline and trace export (issue 5)."""
