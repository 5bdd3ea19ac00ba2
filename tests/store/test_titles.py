"""Session titles from the first question."""

from __future__ import annotations

import pytest

from agent_core.store.tables import TITLE_MAX_CHARS, clean_title, title_from_question


@pytest.mark.parametrize(
    ("question", "title"),
    [
        ("What weekday is 150 days after 2024-05-20?", "What weekday is 150 days after 2024-05-20?"),
        ("   \n\n  ## Plan a   trip\nto Kyoto in May  ", "Plan a trip"),
        ("> quoted question?", "quoted question?"),
        ("```\ncode first\n```", "code first"),
        ("", "New session"),
        ("  \n\t ", "New session"),
        (
            "Please compare the populations of every country in South America and rank them by density",
            "Please compare the populations of every country in South…",
        ),
        ("x" * 100, "x" * 59 + "…"),
        (
            "今天北京的天气怎么样？我想知道明天是否需要带伞，还有后天的气温变化情况如何",
            "今天北京的天气怎么样？我想知道明天是否需要带伞，还有后天的…",  # 58 columns + "…"
        ),
    ],
)
def test_title_from_question(question: str, title: str) -> None:
    assert title_from_question(question) == title


def test_titles_fit_in_sixty_columns() -> None:
    assert len(title_from_question("word " * 50)) <= 60


def test_clean_title() -> None:
    assert clean_title("  a\n b\tc ") == "a b c"
    assert len(clean_title("y" * 1000)) == TITLE_MAX_CHARS
    with pytest.raises(ValueError, match="empty"):
        clean_title(" \n ")
