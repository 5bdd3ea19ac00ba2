"""Re-sample a step: ask the model K times with exactly that step's messages, and see what it would do next.

Each sample is a ``ModelSampled`` event appended to the session, attached to the run and step it re-asks
(the run's own events are not changed). Samples answer "was this a fluke or systematic?": their
``outcome`` is the next action with its canonical arguments, or the final answer; any sample can become a
fork with ``edit_from_sample``.
"""

from __future__ import annotations

import json
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from agent_core.engine.call_index import canonical_arguments
from agent_core.engine.protocols import get_protocol
from agent_core.events import ModelFinished, ModelSampled, RunStarted, StepStarted, Usage, with_full_messages
from agent_core.guards.masking import default_check
from agent_core.models.chat import (
    ChatModel,
    Completion,
    ModelError,
    ModelRequest,
    complete,
    estimate_messages,
    estimate_tokens,
)
from agent_core.models.endpoints import recorded_endpoint
from agent_core.runtime.fork import run_events_of
from agent_core.runtime.fork_edit import StepEdit
from agent_core.store import SessionStore
from agent_core.tools import Tool, ToolSet, builtin_tools

RUN_TEMPERATURE: Any = object()
"""Sample at the temperature the run used (the default)."""


def resample_step(
    store: SessionStore,
    session_id: str,
    run_id: str,
    step: int,
    models: ChatModel | Sequence[ChatModel],
    k: int,
    *,
    tools: Iterable[Tool] | None = None,
    temperature: float | None = RUN_TEMPERATURE,
) -> list[ModelSampled]:
    """Ask each model ``k`` times with step ``step``'s messages; the samples, recorded in the session."""
    if k < 1:
        raise ValueError("ask for at least one sample (-k 1 or more)")
    events = list(with_full_messages(run_events_of(store, session_id, run_id)))
    started = next(e for e in events if isinstance(e, RunStarted))
    asked = [e for e in events if isinstance(e, ModelFinished) and e.step == step]
    if not asked:
        raise ValueError(f"step {step} of run {run_id} made no model call to ask again")
    offered = next((e.offered_tools for e in events if isinstance(e, StepStarted) and e.step == step), ())
    toolset = ToolSet(builtin_tools() if tools is None else tools)
    protocol = get_protocol(started.protocol)
    shown = [t for t in toolset if t.name in offered] if offered else list(toolset)
    chosen = started.settings.get("temperature") if temperature is RUN_TEMPERATURE else temperature
    request = ModelRequest(
        list(asked[-1].messages),
        temperature=chosen,
        max_tokens=started.settings.get("max_tokens"),
        **protocol.request_options(shown),
    )
    batch = f"rs_{uuid.uuid4().hex[:12]}"
    pool = [models] if isinstance(models, ChatModel) else list(models)
    samples = [
        _sample(model, request, toolset, protocol.name, run_id, step, batch, i * k + j)
        for i, model in enumerate(pool)
        for j in range(k)
    ]
    store.log.append(session_id, samples)
    return samples


def _sample(
    model: ChatModel, request: ModelRequest, tools: ToolSet, protocol: str, run_id: str, step: int, batch: str, n: int
) -> ModelSampled:
    began = time.perf_counter()
    try:
        completion, error = complete(model, request), None
    except ModelError as exc:
        completion, error = Completion(), str(exc)
    decision = get_protocol(protocol).interpret(completion, tools)
    usage = completion.usage or Usage(
        estimate_messages(request.messages), estimate_tokens(completion.text), estimated=True
    )
    masked = {"text": completion.text, "thought": decision.thought, "final_answer": decision.final_answer}
    masked = {k: default_check(v, source="model_output").text if v else v for k, v in masked.items()}
    return ModelSampled(
        run_id=run_id,
        step=step,
        batch=batch,
        index=n,
        model=model.name,
        temperature=request.temperature,
        text=masked["text"] or "",
        thought=masked["thought"] or "",
        tool_calls=tuple(c.to_dict() for c in decision.tool_calls) if error is None else (),
        final_answer=masked["final_answer"] if error is None else None,
        format_error=decision.format_error if error is None else None,
        error=error,
        usage=usage,
        latency_ms=(time.perf_counter() - began) * 1000,
        endpoint=recorded_endpoint(model),
    )


def outcome(sample: ModelSampled) -> str:
    """What the sample would do next, as one label: ``tool {"canonical": "args"}``, ``answer: …`` or the problem."""
    if sample.error:
        return "model error"
    if sample.tool_calls:
        return " + ".join(f"{c['name']} {_canonical(c.get('arguments'))}" for c in sample.tool_calls)
    if sample.final_answer is not None:
        return f"answer: {sample.final_answer}"
    return "reply not understood"


def _canonical(raw: Any) -> str:
    try:
        return canonical_arguments(json.loads(raw or "{}"))
    except (TypeError, ValueError):
        return str(raw)


def spread(samples: Iterable[ModelSampled]) -> list[tuple[str, int]]:
    """How many samples chose each outcome, most common first."""
    return Counter(outcome(s) for s in samples).most_common()


def edit_from_sample(sample: ModelSampled) -> StepEdit:
    """The fork edit that makes the step decide what this sample decided."""
    if sample.final_answer is not None and not sample.tool_calls:
        return StepEdit("answer", text=sample.final_answer)
    if not sample.tool_calls:
        raise ValueError("this sample neither calls a tool nor answers: it cannot become a branch")
    return StepEdit("decision", text=sample.thought, tool_calls=sample.tool_calls)
