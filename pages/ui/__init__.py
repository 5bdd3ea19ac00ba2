"""UI helpers shared by the pages: state, settings, i18n and the event renderers."""
