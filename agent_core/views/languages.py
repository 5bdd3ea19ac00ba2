"""The languages Sparrow speaks: the UI, the HTML reports and every command's ``--lang`` read this one list.

It lives apart from the reports' words so that a command can offer the choices without importing the exporters.
"""

from __future__ import annotations

from typing import Literal

ReportLang = Literal["en", "zh"]
LANGS: tuple[ReportLang, ...] = ("en", "zh")
"""English and 简体中文, in the order of every table of words (``html_strings.in_lang``)."""
