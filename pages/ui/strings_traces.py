"""UI strings of the Traces page (merged into ``i18n.STRINGS``)."""

STRINGS: dict[str, dict[str, str]] = {}
