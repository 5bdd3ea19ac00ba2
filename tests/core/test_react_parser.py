"""The ReAct parser against what real models write. It must never raise."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.engine.protocols import get_protocol
from agent_core.engine.protocols.react import ParsedReply, parse_react
from agent_core.tools import builtin_tools

TOOLS = {t.name: t for t in builtin_tools()}


def parse(text: str) -> ParsedReply:
    return parse_react(text, TOOLS)


def action_of(reply: ParsedReply) -> tuple[str | None, dict, str | None]:
    return reply.action, reply.arguments, reply.input_problem


def test_plain_action() -> None:
    reply = parse('Thought: multiply\nAction: calculator\nAction Input: {"expression": "6*7"}')
    assert (reply.thought, *action_of(reply)) == ("multiply", "calculator", {"expression": "6*7"}, None)


def test_plain_final_answer() -> None:
    reply = parse("Thought: I know it.\nFinal Answer: 42 is the answer.")
    assert (reply.thought, reply.final_answer, reply.action, reply.format_error) == (
        "I know it.",
        "42 is the answer.",
        None,
        None,
    )


def test_multiline_final_answer_is_kept_whole() -> None:
    reply = parse("Thought: list\nFinal Answer: Steps:\n1. one\n2. two")
    assert reply.final_answer == "Steps:\n1. one\n2. two"


def test_preamble_becomes_the_thought_when_there_is_no_thought_label() -> None:
    reply = parse('Sure! Let me compute that for you.\nAction: calculator\nAction Input: {"expression": "1+1"}')
    assert reply.thought == "Sure! Let me compute that for you."
    assert action_of(reply) == ("calculator", {"expression": "1+1"}, None)


def test_preamble_before_thought_is_ignored() -> None:
    reply = parse("Okay.\nThought: easy\nFinal Answer: yes")
    assert (reply.thought, reply.final_answer) == ("easy", "yes")


def test_markdown_fence_around_json() -> None:
    text = 'Thought: t\nAction: calculator\nAction Input:\n```json\n{\n  "expression": "2**8"\n}\n```'
    assert action_of(parse(text)) == ("calculator", {"expression": "2**8"}, None)


def test_inline_backticks_around_json() -> None:
    text = 'Thought: t\nAction: `calculator`\nAction Input: `{"expression": "3*3"}`'
    assert action_of(parse(text)) == ("calculator", {"expression": "3*3"}, None)


def test_non_json_input_maps_onto_the_single_parameter() -> None:
    assert action_of(parse("Thought: t\nAction: calculator\nAction Input: 2 + 2")) == (
        "calculator",
        {"expression": "2 + 2"},
        None,
    )


def test_quoted_string_input_maps_onto_the_single_parameter() -> None:
    assert action_of(parse('Thought: t\nAction: calculator\nAction Input: "sqrt(16)"')) == (
        "calculator",
        {"expression": "sqrt(16)"},
        None,
    )


def test_single_required_parameter_also_takes_bare_input() -> None:
    # get_current_time has one optional parameter: a bare value maps onto it.
    assert action_of(parse("Thought: t\nAction: get_current_time\nAction Input: Asia/Tokyo")) == (
        "get_current_time",
        {"timezone": "Asia/Tokyo"},
        None,
    )


def test_bare_input_for_a_multi_parameter_tool_is_a_clear_problem() -> None:
    action, arguments, problem = action_of(parse("Thought: t\nAction: date_calculator\nAction Input: 2024-05-20"))
    assert (action, arguments) == ("date_calculator", {})
    assert problem == "Action Input must be a JSON object with the keys: operation, date, days, other_date"


def test_python_style_dict_is_accepted() -> None:
    text = "Thought: t\nAction: date_calculator\nAction Input: {'operation': 'weekday', 'date': '2024-10-17'}"
    assert action_of(parse(text)) == ("date_calculator", {"operation": "weekday", "date": "2024-10-17"}, None)


def test_input_key_is_remapped_for_single_parameter_tools() -> None:
    assert action_of(parse('Action: calculator\nAction Input: {"input": "1+2"}')) == (
        "calculator",
        {"expression": "1+2"},
        None,
    )


def test_broken_json_is_reported_not_guessed() -> None:
    action, arguments, problem = action_of(parse('Action: calculator\nAction Input: {"expression": "1+2"'))
    assert (action, arguments) == ("calculator", {})
    assert problem is not None and problem.startswith("Action Input is not valid JSON")


def test_full_width_colons() -> None:
    text = 'Thought：我需要计算\nAction：calculator\nAction Input：{"expression": "6*7"}'
    reply = parse(text)
    assert (reply.thought, *action_of(reply)) == ("我需要计算", "calculator", {"expression": "6*7"}, None)


def test_chinese_labels() -> None:
    reply = parse("思考：我知道答案\n最终答案：四十二")
    assert (reply.thought, reply.final_answer) == ("我知道答案", "四十二")


def test_case_whitespace_and_markdown_decoration() -> None:
    text = '**THOUGHT** :  go\n\n  ### action :   calculator  \n- action_input:{"expression":"5-3"}'
    reply = parse(text)
    assert (reply.thought, *action_of(reply)) == ("go", "calculator", {"expression": "5-3"}, None)


def test_bold_labels_with_colon_inside() -> None:
    text = '**Thought:** go\n**Action:** calculator\n**Action Input:** {"expression": "9/3"}'
    assert action_of(parse(text)) == ("calculator", {"expression": "9/3"}, None)


def test_several_actions_take_the_first() -> None:
    text = (
        'Thought: two things\nAction: calculator\nAction Input: {"expression": "1+1"}\n'
        'Action: get_current_time\nAction Input: {"timezone": "UTC"}'
    )
    assert action_of(parse(text)) == ("calculator", {"expression": "1+1"}, None)


def test_hallucinated_observation_is_cut() -> None:
    text = (
        'Thought: compute\nAction: calculator\nAction Input: {"expression": "6*7"}\n'
        "Observation: 41\nThought: done\nFinal Answer: 41"
    )
    reply = parse(text)
    assert action_of(reply) == ("calculator", {"expression": "6*7"}, None)
    assert reply.final_answer is None
    assert reply.cut_observation is True
    assert "Observation" not in reply.text and "41" not in reply.text


def test_action_before_final_answer_wins() -> None:
    text = 'Thought: t\nAction: calculator\nAction Input: {"expression": "2"}\nFinal Answer: 2'
    assert parse(text).action == "calculator"


def test_final_answer_before_action_wins() -> None:
    reply = parse("Thought: t\nFinal Answer: done\nAction: calculator")
    assert (reply.final_answer, reply.action) == ("done", None)


def test_inline_call_syntax() -> None:
    assert action_of(parse("Thought: t\nAction: calculator(2*21)")) == ("calculator", {"expression": "2*21"}, None)


def test_unknown_tool_is_parsed_and_left_to_the_runner() -> None:
    assert action_of(parse('Action: search_web\nAction Input: {"query": "x"}')) == (
        "search_web",
        {"query": "x"},
        None,
    )


def test_neither_action_nor_answer_is_a_format_error() -> None:
    reply = parse("I think the answer is probably 42.")
    assert reply.format_error == "the reply has neither an 'Action:' nor a 'Final Answer:' line"
    assert reply.thought == "I think the answer is probably 42."


def test_empty_reply_and_empty_answer_are_format_errors() -> None:
    assert parse("").format_error == "the reply is empty"
    assert parse("Thought: hmm\nFinal Answer:   ").format_error == "'Final Answer:' is empty"
    assert parse("Thought: hmm\nAction:   ").format_error == "'Action:' names no tool"


def test_words_that_merely_contain_labels_are_not_labels() -> None:
    reply = parse("Thought: the Action: word appears mid-line\nFinal Answer: ok")
    assert (reply.final_answer, reply.action) == ("ok", None)


label = st.sampled_from(
    ["Thought:", "Action:", "Action Input:", "Final Answer:", "Observation:", "思考：", "```", "{", "}", "\n", '"']
)
chunks = st.lists(st.one_of(label, st.text(max_size=30)), max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(chunks)
def test_parser_never_raises(text: str) -> None:
    reply = parse(text)
    assert isinstance(reply, ParsedReply)
    assert (reply.action is not None) + (reply.final_answer is not None) + (reply.format_error is not None) == 1
    assert "Observation:" not in reply.text


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=2000))
def test_parser_never_raises_on_arbitrary_text(text: str) -> None:
    assert isinstance(parse(text), ParsedReply)


@given(st.sampled_from(["Final Answer:", "**Final Answer**:", "final answer：", "最终答案：", "### FINAL_ANSWER:"]))
def test_the_streamed_answer_is_what_the_parser_reads_as_the_final_answer(label: str) -> None:
    react, tools, json_ = (get_protocol(name) for name in ("react", "tools", "json"))
    reply = f"Thought: I know it.\n{label} 42 is the answer.\nObservation: made up"
    assert react.streamed_answer(reply) == parse(reply).final_answer == "42 is the answer."
    assert react.streamed_answer("Thought: still thinking, Final Answer: not a label mid-line") == ""
    assert react.streamed_answer("Thought: t\nAction: calculator\nAction Input: {}\nFinal Answer: no") == ""
    assert tools.streamed_answer("plain text") == "plain text"
    assert json_.streamed_answer('{"final_answer": "4') == "4"
