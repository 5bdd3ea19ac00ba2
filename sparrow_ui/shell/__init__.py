"""The frame every page shares: navigation, layout, process resources and tab state, the sidebar and its settings,
the presentation link."""
