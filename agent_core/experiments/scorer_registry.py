"""Custom scorers: ``@scorer`` functions, registered like plugin tools (``SPARROW_SCORERS`` modules or files).

::

    # myscorers.py
    from agent_core.experiments import scorer

    @scorer
    def polite(ctx):
        '''The answer says please.'''
        return "please" in ctx.answer.lower(), "looked for 'please'"

A scorer takes a ``ScoringContext`` and returns a bool, a number in 0..1 (a pass at 0.5 or more), a
``(bool or number, reason)`` pair, or a ``Score``. Name it in a dataset with ``{"scorer": "polite"}``. One
that raises, or returns something else, is a clear error on that item; the experiment goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, overload

from agent_core.env_settings import env_settings
from agent_core.experiments.scores import Score, ScoringContext
from agent_core.tools.plugins import import_module as load_plugin_module

SCORERS_ENV = "SPARROW_SCORERS"
ScorerFn = Callable[[ScoringContext], Any]
_REGISTRY: dict[str, ScorerFn] = {}


@overload
def scorer(fn: ScorerFn, /) -> ScorerFn: ...
@overload
def scorer(*, name: str | None = None) -> Callable[[ScorerFn], ScorerFn]: ...


def scorer(fn: ScorerFn | None = None, /, *, name: str | None = None) -> Any:
    """Register ``fn`` as the custom scorer ``name`` (default: the function's name)."""

    def register(f: ScorerFn) -> ScorerFn:
        _REGISTRY[name or f.__name__] = f
        return f

    return register(fn) if fn is not None else register


def registered() -> dict[str, ScorerFn]:
    """The custom scorers known now, by name."""
    return dict(_REGISTRY)


def load_scorers(specs: str | None = None) -> list[str]:
    """Import the scorer modules in ``specs`` (default ``$SPARROW_SCORERS``, comma-separated); their problems."""
    problems = []
    listed = env_settings().sparrow_scorers if specs is None else [s.strip() for s in specs.split(",") if s.strip()]
    for spec in listed:
        try:
            load_plugin_module(spec)
        except Exception as exc:  # a broken module is reported, the others still load
            problems.append(f"scorers: {exc}")
    return problems


def custom_score(name: str, ctx: ScoringContext) -> Score:
    """Run the custom scorer ``name``; a missing one, or one that raises or returns nonsense, is an error Score."""
    fn = _REGISTRY.get(name)
    if fn is None:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        return _error(name, f"no custom scorer named {name!r} is registered (known: {known}; see {SCORERS_ENV})")
    try:
        return as_score(name, fn(ctx))
    except Exception as exc:  # one scorer's bug is an error on this item, never a crashed experiment
        return _error(name, f"the scorer {name} raised {type(exc).__name__}: {exc}")


def as_score(name: str, value: Any) -> Score:
    """A scorer's return value as a Score (TypeError for anything else)."""
    reason = f"{name} said so"
    if isinstance(value, Score):
        return value
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], str):
        value, reason = value
    if isinstance(value, bool):
        return Score.of(name, value, reason)
    if isinstance(value, int | float) and 0 <= value <= 1:
        return Score.of(name, value >= 0.5, reason, value=float(value))
    raise TypeError(f"a scorer returns a bool, a number in 0..1, (value, reason) or a Score, not {value!r}")


def _error(name: str, reason: str) -> Score:
    return Score.of(name, False, reason).model_copy(update={"error": True})
