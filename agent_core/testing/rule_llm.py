"""A deterministic, rule-driven stand-in for an LLM, served by FakeOpenAIServer for app and browser tests and demos.

It reads the conversation like a model would and answers in any protocol: native tool calls when the
request has ``tools``, a JSON object when it asks for a ``response_format``, ReAct text otherwise. It only
knows a few question shapes.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from typing import Any

from agent_core.engine.protocols.json_reply import NEXT
from agent_core.testing.fake_models import Reply
from agent_core.testing.fake_server import FakeOpenAIServer

TWO_TOOLS = "What is 17 * 23, and what weekday is 150 days after 2024-05-20?"
SLOW = "Tell me a very long story slowly."
PONDER = "Think it over for a long while."
PONDER_SECONDS = 15.0
"""How long the model behind ``PONDER`` is silent before its answer (a slow reasoning model)."""


def rule_reply(body: dict[str, Any]) -> Reply:
    """The next reply for a chat-completions request body."""
    messages = body.get("messages", [])
    style = "tools" if body.get("tools") else "json" if body.get("response_format") else ""
    question = _question(messages)
    observations = _observations(messages)
    if SLOW.lower() in question.lower():
        return Reply("Thought: " + "once upon a time " * 400, chunk_delay=0.05)
    if PONDER.lower() in question.lower():
        return _final(style, "That took a while.", "I have thought it over.", delay=PONDER_SECONDS)
    if m := re.search(r"fetch (https?://\S+)", question, re.I):
        if not observations:
            return _call(style, "I will fetch the page.", "fetch_url", {"url": m.group(1)})
        return _final(style, "I have the tool's reply.", f"The fetch tool said: {observations[-1].strip()}")
    if "17 * 23" in question:
        if not observations:
            return _call(style, "First I multiply 17 by 23.", "calculator", {"expression": "17 * 23"})
        if len(observations) == 1:
            args = {"operation": "add", "date": "2024-05-20", "days": 150}
            return _call(style, "Now the date arithmetic.", "date_calculator", args)
        weekday = re.search(r"= (\d{4}-\d{2}-\d{2}) \((\w+)\)", observations[-1])
        day = f"{weekday.group(1)}, a {weekday.group(2)}" if weekday else "unknown"
        return _final(
            style,
            "Both results are in.",
            f"17 × 23 = {observations[0].strip()}, and 150 days after 2024-05-20 is {day}.",
        )
    if m := re.search(r"what is ([\d\s+*/().-]+)\??$", question, re.I):
        if not observations:
            return _call(style, "I will use the calculator.", "calculator", {"expression": m.group(1).strip()})
        return _final(style, "Done.", f"The result is {observations[-1].strip()}.")
    if m := re.search(r"add (\d+) to that", question, re.I):
        previous = _previous_answer(messages)
        number = re.findall(r"-?\d+(?:\.\d+)?", previous or "")
        if not observations and number:
            return _call(
                style, "Add to the previous result.", "calculator", {"expression": f"{number[0]} + {m.group(1)}"}
            )
        return _final(style, "Done.", f"The result is {observations[-1].strip() if observations else '?'}.")
    return _final(style, "A simple question.", f"You said: {question}")


def _text(message: dict[str, Any]) -> str:
    """A message's text; for a question with attached images, its text parts."""
    content = message.get("content") or ""
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return str(content)


def _question(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        content = _text(message)
        if message.get("role") == "user" and not content.startswith(("Observation:", "Your last reply")):
            return content
    return ""


_NAMED = re.compile(r"^[\w.-]+ returned: ")
"""The json protocol names the tool before its result (``Observation: calculator returned: 391``) and asks for the
answer after it (``NEXT``)."""


def _observations(messages: list[dict[str, Any]]) -> list[str]:
    """Tool results after the current question."""
    found: list[str] = []
    for message in reversed(messages):
        content = _text(message)
        if message.get("role") == "tool":
            found.append(content)
        elif message.get("role") == "user" and content.startswith("Observation:"):
            result = content.removeprefix("Observation:").strip().removesuffix(NEXT).strip()
            found.append(_NAMED.sub("", result, count=1))
        elif message.get("role") == "user" and not content.startswith("Your last reply"):
            break
    return list(reversed(found))


def _previous_answer(messages: list[dict[str, Any]]) -> str | None:
    seen_question = False
    for message in reversed(messages):
        if message.get("role") == "user" and not _text(message).startswith("Observation:"):
            if seen_question:
                continue
            seen_question = True
        elif seen_question and message.get("role") == "assistant":
            return _text(message).removeprefix("Final Answer:").strip()
    return None


def _call(style: str, thought: str, tool: str, arguments: dict[str, Any]) -> Reply:
    """``style``: "tools", "json" or "" (ReAct text)."""
    if style == "json":
        return Reply(json.dumps({"action": {"tool": tool, "arguments": arguments}}))  # the schema's shape: no thought
    if style == "tools":
        return Reply(thought, tool_calls=((tool, arguments),), chunk_delay=0.01)
    text = f"Thought: {thought}\nAction: {tool}\nAction Input: {json.dumps(arguments)}"
    return Reply(text, chunk_delay=0.01)


def _final(style: str, thought: str, answer: str, *, delay: float = 0.0) -> Reply:
    if style == "json":
        text = json.dumps({"final_answer": answer}, ensure_ascii=False)
        return Reply(text, chunk_delay=0.01, delay=delay)
    if style == "tools":
        return Reply(answer, chunk_delay=0.01, delay=delay)
    return Reply(f"Thought: {thought}\nFinal Answer: {answer}", chunk_delay=0.01, delay=delay)


def main() -> None:
    """Serve the fake LLM until interrupted: ``python -m agent_core.testing.rule_llm --port 8765``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = FakeOpenAIServer(rule_reply, port=args.port).start()
    print(server.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
