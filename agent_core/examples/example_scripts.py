"""The scripted model replies of each example: what the example's model "writes", turn by turn.

The tools really run (the built-in calculator and date calculator), so each reply after a tool call is
written to match what the tool returns; ``build`` checks every run ends as the script intends.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_core.testing import Reply


@dataclass(frozen=True)
class Turn:
    """One question of an example and the replies its scripted model gives, in order."""

    question: str
    replies: tuple[str | Reply, ...]
    observed: tuple[str, ...] = ()
    """Text the tools' outputs must hold, in order of the calls: the replies after them rely on it."""
    status: str = "completed"
    """How the run must end."""


def _react(thought: str, tool: str, arguments: str, colon: str = ":") -> str:
    return f"Thought{colon} {thought}\nAction{colon} {tool}\nAction Input{colon} {arguments}"


def _answer(thought: str, answer: str, colon: str = ":") -> str:
    return f"Thought{colon} {thought}\nFinal Answer{colon} {answer}"


DATES = (
    Turn(
        "What weekday is 150 days after 2024-05-20? And what is 17.5% of 2,340?",
        (
            _react(
                "Two separate tasks. First the date: I will add 150 days to 2024-05-20 with the date tool.",
                "date_calculator",
                '{"operation": "add", "date": "2024-05-20", "days": 150}',
            ),
            _react(
                "150 days after 2024-05-20 is 2024-10-17, a Thursday. Now the percentage: 0.175 * 2340.",
                "calculator",
                '{"expression": "0.175 * 2340"}',
            ),
            _answer(
                "I have both results.",
                "150 days after 2024-05-20 is **Thursday, 2024-10-17**, and 17.5% of 2,340 is **409.5**.",
            ),
        ),
        observed=("= 2024-10-17 (Thursday)", "409.5"),
    ),
    Turn(
        "How many days are there from that date to 2025-01-01?",
        (
            _react(
                "'That date' is 2024-10-17 from the previous answer. I will count the days to 2025-01-01.",
                "date_calculator",
                '{"operation": "difference", "date": "2024-10-17", "other_date": "2025-01-01"}',
            ),
            _answer("The tool counted them.", "From Thursday 2024-10-17 to 2025-01-01 there are **76 days**."),
        ),
        observed=("is 76 days",),
    ),
)

PARALLEL = (
    Turn(
        "Which is bigger, 2^64 or 10^19, and by how much? How many days are there from 2024-01-01 to "
        "2024-12-25, and on what weekday is that Christmas?",
        (
            Reply(
                text="Three independent questions: I will ask all three tools at once.",
                reasoning="The comparison is one subtraction; the day count and the weekday are two date operations.",
                tool_calls=(
                    ("calculator", {"expression": "2**64 - 10**19"}),
                    ("date_calculator", {"operation": "difference", "date": "2024-01-01", "other_date": "2024-12-25"}),
                    ("date_calculator", {"operation": "weekday", "date": "2024-12-25"}),
                ),
            ),
            Reply(
                text="- **2^64 is bigger**: 2^64 − 10^19 = 8,446,744,073,709,551,616.\n"
                "- From 2024-01-01 to 2024-12-25 there are **359 days**.\n"
                "- Christmas 2024 is on a **Wednesday**."
            ),
        ),
        observed=("8446744073709551616", "is 359 days", "(Wednesday)"),
    ),
)

RECOVERY = (
    Turn(
        "What is the square root of the number of days between 2023-03-01 and 2024-03-01, to two decimals?",
        (
            "Sure! First I should count the days between the two dates, and then take the square root.",
            _react(
                "I forgot the format. Count the days first.",
                "date_calculator",
                '{"operation": "difference", "date": "2023-03-01", "other_date": "2024-03-01"}',
            ),
            _react("366 days (2024 is a leap year). Now the square root.", "calculator", '{"expression": "sqrt(366"}'),
            _react(
                "The calculator refused my expression: a parenthesis is missing. Fix it and round to two decimals.",
                "calculator",
                '{"expression": "round(sqrt(366), 2)"}',
            ),
            _answer(
                "Done, after fixing my own mistakes.",
                "There are 366 days between 2023-03-01 and 2024-03-01, and √366 ≈ **19.13**.",
            ),
        ),
        observed=("is 366 days", "was never closed", "19.13"),
    ),
)

CHINESE = (
    Turn(
        "2024年5月20日之后150天是星期几？这150天大约是多少周？",
        (
            _react(
                "先用日期工具算出 2024-05-20 加 150 天。",
                "date_calculator",
                '{"operation": "add", "date": "2024-05-20", "days": 150}',
                "：",
            ),
            _react("是 2024-10-17，星期四。再算 150 ÷ 7。", "calculator", '{"expression": "round(150 / 7, 1)"}', "："),
            _answer(
                "两个结果都有了。",
                "2024年5月20日之后150天是 **2024年10月17日，星期四**；150 天约为 **21.4 周**。",
                "：",
            ),
        ),
        observed=("= 2024-10-17 (Thursday)", "21.4"),
    ),
)

SCRIPTS: dict[str, tuple[Turn, ...]] = {
    "dates": DATES,
    "parallel": PARALLEL,
    "recovery": RECOVERY,
    "chinese": CHINESE,
}
"""The turns of each example, by name (the names of ``agent_core.examples.EXAMPLES``)."""
