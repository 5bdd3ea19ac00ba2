"""Prompt tokens Sparrow sends against the seed agent's, like for like: calculator only, the same questions.

The seed agent (``/work/shared/seeds/000_*.txt``, ``SimpleReActAgent``) sends one user message per step that
repeats its whole prompt: role, tool list, the conversation so far, the question and the format. Sparrow sends a
system prompt once and appends each step's reply and Observation. Both agents here get the same model replies
(scripted: the same Thoughts, Actions and answers) and run the same real calculator, so what differs is only
what each one wraps around them. Tokens are counted with Sparrow's estimator for both sides (about 4 Latin
characters or 1 CJK character per token, 4 per message).

Two figures per agent, summed over every model call of every question:
- total: all the prompt tokens sent;
- uncached: the tokens after the longest prefix a call shares with the previous call of the same question,
  which is what a provider's prefix cache (OpenAI, DeepSeek, vLLM, llama.cpp) has to process afresh.

Each answer is checked: the calculator's result must reach the final answer in both agents.

    python bench/prompt_economy.py [--json]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent_core import Agent
from agent_core.events import ModelFinished, RunFinished, with_full_messages
from agent_core.models.chat import estimate_messages, estimate_tokens
from agent_core.testing import ScriptedModel
from agent_core.tools import calculator

Message = dict[str, Any]


@dataclass(frozen=True)
class Case:
    """A question, the scripted steps ``(thought, expression)``, the final thought and answer, and its result."""

    question: str
    steps: tuple[tuple[str, str], ...]
    answer: str
    expected: str


CASES = (
    Case(
        "123乘以456等于多少？",
        (("我需要计算123*456，我将调用计算器工具。", "123*456"),),
        "123乘以456等于56088。",
        "56088",
    ),
    Case(
        "一件商品原价2340元，打八五折后再减120元，最后多少钱？",
        (("先算八五折：2340*0.85。", "2340*0.85"), ("再减去120元。", "1989-120")),
        "最后是1869元。",
        "1869",
    ),
    Case(
        "一个长方形长12.5米、宽8米，面积和周长各是多少？",
        (("先算面积：12.5*8。", "12.5*8"), ("再算周长：2*(12.5+8)。", "2*(12.5+8)")),
        "面积是100平方米，周长是41米。",
        "41",
    ),
    Case("What is 17% of 2,340?", (("I need 0.17 * 2340.", "0.17 * 2340"),), "17% of 2,340 is 397.8.", "397.8"),
    Case(
        "What is the square root of 1764, plus 2 to the power of 10?",
        (("First the square root of 1764.", "sqrt(1764)"), ("Now add 2**10 to 42.", "42 + 2**10")),
        "The square root of 1764 plus 2^10 is 1066.",
        "1066",
    ),
)


def replies(case: Case) -> list[str]:
    """The model's replies to both agents, in ReAct text."""
    out = [
        f'Thought: {thought}\nAction: calculator\nAction Input: {{"expression": "{expr}"}}'
        for thought, expr in case.steps
    ]
    return [*out, f"Thought: 我通过之前的步骤已经得到了答案。\nFinal Answer: {case.answer}"]


# ── the seed agent, as its article writes it (calculator only) ────────────────────────────────────────

SEED_ROLE = (  # one line in the article
    "你是一个善于思考并可以使用工具的AI助手。你的任务是通过思考（Thought）、行动（Action）、观察（Observation）的循环来回答问题。"
)
SEED_TOOLS = [{"name": "calculator", "description": "执行数学计算，例如：'3 + 5 * 2'。"}]


def seed_prompt(question: str, history: str, available_tools: list[dict[str, str]]) -> str:
    """``create_react_prompt`` from the seed article, verbatim."""
    tools_desc = "\n".join([f"- {t['name']}: {t['description']}" for t in available_tools])
    return f"""{SEED_ROLE}

你可以使用的工具如下：
{tools_desc}

对话历史：
{history}

当前问题：{question}

请严格按照以下格式回应：

Thought: 你需要在这里描述你对问题的思考过程，分析当前情况，并决定下一步做什么。
Action: 你需要在这里指定要调用的工具名称。必须是以下之一：{[t["name"] for t in available_tools]}。
Action Input: 你需要在这里以JSON格式提供调用工具所需的输入参数。

或者，如果你认为问题已经解决，不需要再使用工具，则使用以下格式：

Thought: 我通过之前的步骤已经得到了答案。
Final Answer: 你的最终答案放在这里。

现在开始：
"""


def seed_requests(case: Case) -> tuple[list[list[Message]], str]:
    """The seed loop's requests for ``case`` (its ConversationMemory and parse rules) and its final answer."""
    memory = [("Human", case.question)]
    requests: list[list[Message]] = []
    for reply in replies(case):
        history = "\n".join(f"{role}: {content}" for role, content in memory)
        requests.append([{"role": "user", "content": seed_prompt(case.question, history, SEED_TOOLS)}])
        lines = dict(line.split(": ", 1) for line in reply.splitlines())
        if "Final Answer" in lines:
            return requests, lines["Final Answer"]
        expression = json.loads(lines["Action Input"])["expression"]
        observation = calculator.fn(expression)
        memory.append(("Assistant", f"Thought: {lines['Thought']}\nAction: calculator\nObservation: {observation}"))
    raise AssertionError("the script ends with a final answer")


def sparrow_requests(case: Case) -> tuple[list[list[Message]], str]:
    """Sparrow's exact requests for ``case`` (ReAct text protocol, the calculator only) and its final answer."""
    events = list(with_full_messages(Agent(ScriptedModel(replies(case)), [calculator]).run(case.question)))
    requests = [list(e.messages) for e in events if isinstance(e, ModelFinished)]
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.status == "completed", finished
    return requests, finished.final_answer or ""


# ── counting ─────────────────────────────────────────────────────────────────────────────────────────


def uncached(previous: Sequence[Message], current: Sequence[Message]) -> int:
    """Tokens of ``current`` after the longest prefix it shares with ``previous`` (message by message, then text)."""
    same = 0
    while same < min(len(previous), len(current)) and previous[same] == current[same]:
        same += 1
    if same == len(current):
        return 0
    text, before = str(current[same].get("content") or ""), previous[same] if same < len(previous) else None
    shared = 0
    if before is not None and before.get("role") == current[same].get("role"):
        old = str(before.get("content") or "")
        while shared < min(len(text), len(old)) and text[shared] == old[shared]:
            shared += 1
    return 4 + estimate_tokens(text[shared:]) + estimate_messages(current[same + 1 :])


def tally(requests: Sequence[Sequence[Message]]) -> tuple[int, int]:
    """(total, uncached) prompt tokens of one question's requests."""
    total = sum(estimate_messages(r) for r in requests)
    fresh = sum(uncached(requests[i - 1] if i else (), r) for i, r in enumerate(requests))
    return total, fresh


def measure() -> dict[str, Any]:
    """Both agents' totals over the cases, their ratios, and whether every answer came through."""
    sums = {"seed": [0, 0], "sparrow": [0, 0]}
    answers_kept = True
    for case in CASES:
        for name, run in (("seed", seed_requests), ("sparrow", sparrow_requests)):
            requests, answer = run(case)
            total, fresh = tally(requests)
            sums[name][0] += total
            sums[name][1] += fresh
            answers_kept &= case.expected in answer
    seed, sparrow = sums["seed"], sums["sparrow"]
    return {
        "questions": len(CASES),
        "seed": {"total": seed[0], "uncached": seed[1]},
        "sparrow": {"total": sparrow[0], "uncached": sparrow[1]},
        "ratio_total": round(sparrow[0] / seed[0], 2),
        "ratio_uncached": round(sparrow[1] / seed[1], 2),
        "answers_kept": answers_kept,
    }


def main() -> None:
    """Print the measurement (or its JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    result = measure()
    if parser.parse_args().json:
        print(json.dumps(result))
        return
    print(f"{result['questions']} questions, calculator only, the same replies to both agents")
    for name in ("seed", "sparrow"):
        print(f"  {name:8} total {result[name]['total']:6} prompt tokens · uncached {result[name]['uncached']:6}")
    print(f"  Sparrow / seed: {result['ratio_uncached']}× uncached, {result['ratio_total']}× total")
    print(f"  every answer kept: {result['answers_kept']}")


if __name__ == "__main__":
    main()
