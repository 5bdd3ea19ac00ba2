"""The Traces page's parts: the session overview, charts, the step inspector and the trace downloads."""
