"""The one fold of events into turns (transcript.py, turns.py) and what is read off it: metrics, timeline,
comparisons; and the languages Sparrow speaks (``LANGS``), which the UI, the HTML reports and every command's
``--lang`` read, kept here so that a command can offer the choices without importing the exporters."""

from __future__ import annotations

from typing import Literal

ReportLang = Literal["en", "zh"]
LANGS: tuple[ReportLang, ...] = ("en", "zh")
"""English and 简体中文, in the order of every table of words (``trace_export.html.in_lang``)."""
