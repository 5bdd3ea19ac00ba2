"""In the loop: tool retrieval per step, approvals as events, and the output check."""

from __future__ import annotations

import threading

from agent_core import Agent, CancelToken
from agent_core.engine.approvals import approval_key
from agent_core.events import ApprovalRequested, ModelFinished, OutputFlagged, StepStarted, ToolFinished
from agent_core.testing import Reply, ScriptedModel
from agent_core.tools import ToolOutput, builtin_tools, tool
from tests.core.helpers import answer, react, simplify

SECRET = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"


@tool(needs_approval=True)
def send_email(to: str, body: str) -> str:
    """Send an email.

    Args:
        to: Recipient address.
        body: Message text.
    """
    return f"sent to {to}"


@tool
def leaky_config(name: str) -> ToolOutput:
    """Read a configuration value.

    Args:
        name: Setting name.
    """
    return ToolOutput(f"{name} = {SECRET}", {"value": SECRET})


def approve_when_asked(agent: Agent, events, approved: bool) -> list:  # type: ignore[no-untyped-def]
    """Consume a run like a UI would: decide every approval request as it appears."""
    seen = []
    for event in events:
        seen.append(event)
        if isinstance(event, ApprovalRequested):
            agent.approvals.decide(approval_key(event.run_id, event.step, event.call_id), approved)
    return seen


def test_approved_call_runs_and_the_decision_is_in_the_log() -> None:
    model = ScriptedModel([react("mail", "send_email", to="a@b.c", body="hi"), answer("sent", "Done.")])
    agent = Agent(model, [send_email])
    events = approve_when_asked(agent, agent.run("email a@b.c"), approved=True)
    kinds = [e.type for e in events if e.type not in ("model_delta",)]
    assert kinds[kinds.index("approval_requested") : kinds.index("tool_finished") + 1] == [
        "approval_requested",
        "approval_decided",
        "tool_started",
        "tool_finished",
    ]
    assert next(e for e in events if isinstance(e, ToolFinished)).output == "sent to a@b.c"
    assert events[-1].status == "completed"


def test_denied_call_becomes_an_observation() -> None:
    model = ScriptedModel([react("mail", "send_email", to="a@b.c", body="hi"), answer("denied", "I did not send it.")])
    agent = Agent(model, [send_email])
    events = approve_when_asked(agent, agent.run("email a@b.c"), approved=False)
    decided = next(e for e in events if e.type == "approval_decided")
    assert (decided.approved, decided.by) == (False, "user")
    assert next(s for s in simplify(events) if s[0] == "observation") == (
        "observation",
        "Error: the user denied this call to send_email. Do not retry it; answer with what you have or ask the user.",
        "the user denied this call to send_email",
    )
    assert "the user denied this call" in model.requests[1].messages[-1]["content"]


def test_the_run_waits_for_a_decision_from_another_thread() -> None:
    model = ScriptedModel([react("mail", "send_email", to="x@y.z", body="hi"), answer("sent", "ok")])
    agent = Agent(model, [send_email], time_limit=5)
    events = []
    for event in agent.run("email"):
        events.append(event)
        if isinstance(event, ApprovalRequested):
            key = approval_key(event.run_id, event.step, event.call_id)
            threading.Timer(0.3, agent.approvals.decide, args=(key, True)).start()
    assert events[-1].status == "completed"


def test_require_approval_off_approves_by_policy() -> None:
    model = ScriptedModel([react("mail", "send_email", to="a@b.c", body="hi"), answer("sent", "ok")])
    events = list(Agent(model, [send_email], require_approval=False).run("email"))
    decided = next(e for e in events if e.type == "approval_decided")
    assert (decided.approved, decided.by) == (True, "policy")
    assert not any(e.type == "approval_requested" for e in events)


def test_cancel_while_waiting_for_approval() -> None:
    model = ScriptedModel([react("mail", "send_email", to="a@b.c", body="hi")])
    cancel = CancelToken()
    threading.Timer(0.3, cancel.cancel).start()
    events = list(Agent(model, [send_email]).run("email", cancel=cancel))
    assert events[-1].status == "cancelled"
    assert events[-1].error == "cancelled while waiting for approval of send_email"


def test_secrets_in_tool_outputs_are_masked_and_flagged() -> None:
    model = ScriptedModel([react("read", "leaky_config", name="api"), answer("ok", "The key is configured.")])
    events = list(Agent(model, [leaky_config]).run("what is the api setting?"))
    result = next(e for e in events if isinstance(e, ToolFinished))
    assert SECRET not in result.output and SECRET not in str(result.details)
    assert result.output == "api = sk-proj-A…[masked]"
    flagged = next(e for e in events if isinstance(e, OutputFlagged))
    assert (flagged.source, flagged.call_id) == ("tool_output", "call_1")
    assert flagged.findings[0] == {"kind": "openai_key", "label": "OpenAI API key", "masked": "sk-proj-A…[masked]"}
    assert SECRET not in str(model.requests[1].messages)
    assert all(SECRET not in str(e.to_dict()) for e in events)


def test_secrets_in_the_answer_are_masked() -> None:
    model = ScriptedModel([answer("it is in the env", f"Your key is {SECRET}.")])
    events = list(Agent(model, []).run("what is my key?"))
    assert events[-1].final_answer == "Your key is sk-proj-A…[masked]."
    finished = next(e for e in events if isinstance(e, ModelFinished))
    assert SECRET not in finished.text
    assert next(e for e in events if isinstance(e, OutputFlagged)).source == "final_answer"


def test_the_output_check_can_be_replaced_or_turned_off() -> None:
    model = ScriptedModel([answer("t", f"key {SECRET}")])
    events = list(Agent(model, [], output_check=None).run("x"))
    assert events[-1].final_answer == f"key {SECRET}"


def test_tool_retrieval_offers_only_the_relevant_tools() -> None:
    @tool
    def convert_currency(amount: float, currency: str) -> str:
        """Convert money between currencies using exchange rates.

        Args:
            amount: How much money.
            currency: Target currency code such as EUR.
        """
        return "1"

    many = [*builtin_tools(), convert_currency, send_email, leaky_config]
    model = ScriptedModel([Reply("ok", usage=(1, 1))])
    events = list(
        Agent(model, many, protocol="tools", max_tools=2, pinned_tools=("calculator",)).run(
            "convert 20 dollars to EUR currency"
        )
    )
    step = next(e for e in events if isinstance(e, StepStarted))
    assert step.offered_tools == ("calculator", "convert_currency")
    assert [t["function"]["name"] for t in model.requests[0].tools] == ["calculator", "convert_currency"]


def test_react_prompt_lists_only_the_offered_tools() -> None:
    model = ScriptedModel([answer("t", "ok")])
    list(Agent(model, builtin_tools(), max_tools=1).run("what weekday is 2024-10-17 date"))
    system = model.requests[0].messages[0]["content"]
    assert "- date_calculator(" in system and "- calculator(" not in system
