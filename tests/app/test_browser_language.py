"""The UI speaks the browser's language until the person picks one."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from sparrow_ui.shell import browser_language as module


@pytest.mark.parametrize(
    ("locale", "expected"), [("zh-CN", "zh"), ("zh_TW", "zh"), ("en-US", "en"), ("fr-FR", "en"), (None, "en")]
)
def test_the_browser_locale_picks_the_default_language(
    locale: str | None, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(module, "st", SimpleNamespace(context=SimpleNamespace(locale=locale)))
    assert module.browser_language() == expected
