"""The bare loops Sparrow grew from, written down minimally and faithfully, for timing side by side.

- ``seed_react``: the second seed article's ``run_agent`` (a pi-agent style loop in ReAct text): one message list,
  the model's reply appended, ``parse_output`` with its three regular expressions and ``json.loads``, the tool
  called with ``**params``, its result fed back as ``Observation: …``, a format complaint when nothing matched.
- ``seed_tools``: the same loop with native tool calls instead of text (the loop shape of pi-agent, which the
  article follows): the reply's ``tool_calls`` are decoded with ``json.loads``, each tool called with
  ``**arguments``, its result appended as a ``tool`` message; a reply without calls is the answer.

Neither seed streams: its ``call_llm`` returns the finished reply. ``FakeLLM`` reads the same zero-latency
scripted model Sparrow reads (``ScriptedModel``: the same replies, chunked the same way) and keeps its
Completion, and the tool is the same calculator function, so both sides pay the same for the model and the
tool and what differs is only what each loop wraps around them. ``ListLLM`` hands out the finished replies
from a list instead (no model at all): the seed's loop alone, the floor.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from agent_core.models.chat import Completion, ModelRequest
from agent_core.testing import ScriptedModel

Tools = dict[str, Callable[..., Any]]

SYSTEM = (
    "你是一个能够使用工具的智能助手。你可以通过思考和调用工具来解决问题。\n可用工具：\n{tools}\n"
    "你必须严格按照以下格式输出，每次只输出一个步骤：\n"
    "格式一（需要调用工具时）：\nThought: 你的思考过程\nAction: 工具名称\nAction Input: 工具参数的 JSON\n"
    "格式二（已经可以回答时）：\nThought: 你的思考过程\nFinal Answer: 你的最终答案"
)
FORMAT_COMPLAINT = "你的输出格式不正确，请严格按照 Thought/Action/Action Input 或 Thought/Final Answer 的格式重新输出。"


class FakeLLM:
    """The seed's ``call_llm`` over a scripted model: one request, the stream read to its Completion."""

    def __init__(self, model: ScriptedModel) -> None:
        self.model = model

    def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> Completion:
        """The finished reply to ``messages``."""
        for item in self.model.stream(ModelRequest(messages, tools=tools, temperature=0.0)):
            if isinstance(item, Completion):
                return item
        raise RuntimeError("the model ended without a completion")


class ListLLM:
    """The seed's ``call_llm`` with no model behind it: the next finished reply from a list."""

    def __init__(self, replies: list[Completion]) -> None:
        self.replies = iter(replies)

    def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> Completion:
        """The next reply, whatever was asked."""
        return next(self.replies)


CallLLM = Callable[[list[dict[str, Any]], list[dict[str, Any]] | None], Completion]


def parse_output(text: str) -> dict[str, Any]:
    """The seed's parser, as written: Final Answer first, then Action + Action Input, else a format error."""
    final_match = re.search(r"Final Answer:\s*(.+)", text, re.DOTALL)
    if final_match:
        return {"type": "final", "content": final_match.group(1).strip()}
    action_match = re.search(r"Action:\s*(\w+)", text)
    input_match = re.search(r"Action Input:\s*(.+)", text, re.DOTALL)
    if action_match and input_match:
        raw_input = input_match.group(1).strip()
        try:
            params = json.loads(raw_input)
        except json.JSONDecodeError:
            params = {"input": raw_input}
        return {"type": "action", "tool": action_match.group(1).strip(), "params": params}
    return {"type": "error", "content": text}


def seed_react(call_llm: CallLLM, tools: Tools, question: str, max_steps: int) -> str:
    """The seed's ``run_agent`` in ReAct text."""
    listing = "\n".join(f"- {name}: {fn.__doc__ or ''}" for name, fn in tools.items())
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM.format(tools=listing)},
        {"role": "user", "content": question},
    ]
    for _ in range(max_steps):
        llm_output = call_llm(messages, None).text
        messages.append({"role": "assistant", "content": llm_output})
        parsed = parse_output(llm_output)
        if parsed["type"] == "final":
            return parsed["content"]
        if parsed["type"] == "action":
            name = parsed["tool"]
            if name not in tools:
                observation = f"错误：工具 {name} 不存在，可用工具：{list(tools)}"
            else:
                try:
                    observation = tools[name](**parsed["params"])
                except Exception as e:  # the seed feeds every tool failure back
                    observation = f"工具执行出错：{e}"
            messages.append({"role": "user", "content": f"Observation: {observation}"})
            continue
        messages.append({"role": "user", "content": FORMAT_COMPLAINT})
    return "达到最大步数限制，任务未完成。"


def seed_tools(call_llm: CallLLM, tools: Tools, schemas: list[dict[str, Any]], question: str, max_steps: int) -> str:
    """The same loop with native tool calls: the reply's calls are run and answered with ``tool`` messages."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "你是一个能够使用工具的智能助手。"},
        {"role": "user", "content": question},
    ]
    for _ in range(max_steps):
        reply = call_llm(messages, schemas)
        if not reply.tool_calls:
            return reply.text
        messages.append(
            {
                "role": "assistant",
                "content": reply.text,
                "tool_calls": [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                    for c in reply.tool_calls
                ],
            }
        )
        for call in reply.tool_calls:
            try:
                output = (
                    tools[call.name](**json.loads(call.arguments)) if call.name in tools else f"未知工具 {call.name}"
                )
            except Exception as e:  # the seed feeds every tool failure back
                output = f"工具执行出错：{e}"
            messages.append({"role": "tool", "tool_call_id": call.id, "content": str(output)})
    return "达到最大步数限制，任务未完成。"
