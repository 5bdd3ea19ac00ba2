"""Scrubbing configuration and redacting known secret values."""

from __future__ import annotations

import json

import pytest

from agent_core.store.redaction import REDACTED, Redactor, is_secret_name, scrub_settings, scrub_url


@pytest.mark.parametrize("name", ["api_key", "OPENAI_API_KEY", "apiKey", "token", "x-auth", "password", "sig"])
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["keep_steps", "max_tokens", "memory_budget_tokens", "author", "monkey"])
def test_ordinary_names(name: str) -> None:
    assert not is_secret_name(name)


def test_scrub_settings_at_any_depth() -> None:
    settings = {"temperature": 0, "headers": {"Authorization": "Bearer x", "accept": "json"}, "list": [{"token": 1}]}
    assert scrub_settings(settings) == {"temperature": 0, "headers": {"accept": "json"}, "list": [{}]}


@pytest.mark.parametrize(
    ("url", "clean"),
    [
        ("https://u:p@api.example.com:8443/v1", "https://api.example.com:8443/v1"),
        ("https://api.example.com/v1?api-version=2024&key=abc", "https://api.example.com/v1?api-version=2024"),
        ("http://localhost:11434/v1", "http://localhost:11434/v1"),
        (None, None),
    ],
)
def test_scrub_url(url: str | None, clean: str | None) -> None:
    assert scrub_url(url) == clean


def test_redactor_replaces_raw_and_json_escaped_values_but_not_short_ones() -> None:
    secret = 'sk-"quoted"\\-123456'
    redact = Redactor([secret, "abc", None])
    text = json.dumps({"a": secret, "b": "abc"}, ensure_ascii=False)
    assert json.loads(redact(text)) == {"a": REDACTED, "b": "abc"}
    assert redact(f"plain {secret} text") == f"plain {REDACTED} text"
    assert not Redactor([None, "short"])
