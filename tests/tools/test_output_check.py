"""The output check: secrets found by shape and masked with a short prefix; look-alikes left alone; hooks compose.

Secrets are assembled at run time so that this file holds no string a secret scanner would flag.
"""

from __future__ import annotations

import pytest

from agent_core.guards.masking import (
    CheckResult,
    Finding,
    SecretMasker,
    chain,
    check_value,
    default_check,
    mask_secrets,
)

OPENAI_LEGACY = "sk-" + "A1b2C3d4" * 6
OPENAI_PROJECT = "sk-" + "proj-" + "Xy9_Zw8-" * 8
ANTHROPIC = "sk-" + "ant-api03-" + "Qr7_St6-" * 10
AWS_ID = "AK" + "IA" + "IOSFODNN7EXAMPL1"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
GITHUB = "gh" + "p_" + "a1B2c3D4e5" * 4
GITHUB_PAT = "github" + "_pat_" + "11ABCDEFG0" + "_" + "abcdefghij1234567890" * 3
SLACK = "xo" + "xb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
GOOGLE = "AI" + "za" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
STRIPE = "sk" + "_live_" + "51HxYzAbCdEfGhIjKlMnOpQr"
HUGGINGFACE = "h" + "f_" + "AbCdEfGhIjKlMnOpQrStUvWxYz12345678"
JWT = "ey" + "JhbGciOiJIUzI1NiJ9.ey" + "JzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
BEARER = "abc123DEF456ghi789JKL0mno"
PASSWORD = "Sup3r-S3cret-Passw0rd"
PEM = "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\nZ29vZCBrZXk=\n-----END RSA " + "PRIVATE KEY-----"


@pytest.mark.parametrize(
    ("text", "masked", "kind"),
    [
        (f"key: {OPENAI_LEGACY}", "key: sk-A…[masked]", "openai_key"),
        (f"OPENAI_API_KEY={OPENAI_PROJECT}", "OPENAI_API_KEY=sk-proj-X…[masked]", "openai_key"),
        (f"use {ANTHROPIC} here", "use sk-ant-a…[masked] here", "anthropic_key"),
        (f"id {AWS_ID}.", "id AKIAI…[masked].", "aws_access_key"),
        (f"aws_secret_access_key = {AWS_SECRET}", "aws_secret_access_key = wJal…[masked]", "aws_secret_key"),
        (f"token {GITHUB}", "token ghp_a…[masked]", "github_token"),
        (f"{GITHUB_PAT}", "github_pat_1…[masked]", "github_token"),
        (f"SLACK={SLACK}", "SLACK=xoxb-…[masked]", "slack_token"),
        (f"?key={GOOGLE}&q=1", "?key=AIzaS…[masked]&q=1", "google_api_key"),
        (f"stripe {STRIPE}", "stripe sk_live_…[masked]", "stripe_key"),
        (f"HF_TOKEN {HUGGINGFACE}", "HF_TOKEN hf_A…[masked]", "huggingface_token"),
        (f"cookie={JWT};", "cookie=eyJh…[masked];", "jwt"),
        (f"Authorization: Bearer {BEARER}", "Authorization: Bearer abc1…[masked]", "bearer_token"),
        (f'{{"password": "{PASSWORD}"}}', '{"password": "Sup3…[masked]"}', "credential"),
        (f"before\n{PEM}\nafter", "before\n-----BEGIN RSA PRIVATE KEY-----…[masked]\nafter", "private_key"),
        (
            "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B (output cut",
            "-----BEGIN PRIVATE KEY-----…[masked]",
            "private_key",
        ),
    ],
)
def test_secrets_are_masked_with_a_short_prefix(text: str, masked: str, kind: str) -> None:
    result = default_check(text, source="final_answer")
    assert result.text == masked
    [finding] = result.findings
    assert finding.kind == kind
    assert masked[: finding.start] + finding.masked in masked


def test_findings_point_at_the_original_text() -> None:
    text = f"a {OPENAI_LEGACY} b {AWS_ID} c"
    result = SecretMasker()(text)
    assert [(f.kind, text[f.start : f.end]) for f in result.findings] == [
        ("openai_key", OPENAI_LEGACY),
        ("aws_access_key", AWS_ID),
    ]
    assert result.text == "a sk-A…[masked] b AKIAI…[masked] c"
    assert result.findings[0].to_dict() == {
        "kind": "openai_key",
        "label": "OpenAI API key",
        "start": 2,
        "end": 2 + len(OPENAI_LEGACY),
        "masked": "sk-A…[masked]",
    }


def test_specific_patterns_win_over_generic_ones() -> None:
    result = default_check(f"api_key={OPENAI_PROJECT} and Authorization: Bearer {JWT}")
    assert [f.kind for f in result.findings] == ["openai_key", "jwt"]
    assert result.text == "api_key=sk-proj-X…[masked] and Authorization: Bearer eyJh…[masked]"


def test_masking_is_idempotent() -> None:
    once = mask_secrets(f"{OPENAI_LEGACY} {GITHUB} {PEM} password={PASSWORD}")
    assert mask_secrets(once) == once
    assert not default_check(once).flagged


@pytest.mark.parametrize(
    "text",
    [
        "We use scikit-learn (sk-learn) for the task-sk-1234 ticket.",
        "Ask-me-anything about skiing: https://example.com/task-skills-overview-2024",
        "AWS key IDs start with AKIA followed by 16 characters.",
        "Send the header as: Authorization: Bearer <token>",
        "Bearer authentication is described in RFC 6750.",
        "password: hunter2",
        "The password is correcthorsebatterystaple",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        "id 123e4567-e89b-12d3-a456-426614174000",
        "ghp_short and xoxb-1 and AIzaShort",
        "The token count was 1234 tokens in total.",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
    ],
)
def test_look_alikes_are_left_alone(text: str) -> None:
    assert default_check(text) == CheckResult(text)


def test_custom_hooks_chain_with_the_default() -> None:
    calls: list[str] = []

    def no_internal_hosts(text: str, *, source: str = "other") -> CheckResult:
        calls.append(source)
        marker = "intranet.corp"
        if marker not in text:
            return CheckResult(text)
        start = text.index(marker)
        finding = Finding("internal_host", "internal host name", start, start + len(marker), "[internal]")
        return CheckResult(text.replace(marker, "[internal]"), (finding,))

    check = chain(default_check, no_internal_hosts)
    result = check(f"see http://intranet.corp/x with {GITHUB}", source="tool_output")
    assert result.text == "see http://[internal]/x with ghp_a…[masked]"
    assert [f.kind for f in result.findings] == ["github_token", "internal_host"]
    assert calls == ["tool_output"]


def test_check_value_masks_strings_inside_details() -> None:
    details = {"results": [{"title": "x", "snippet": f"leaked {SLACK}"}], "count": 1, "pair": ("ok", OPENAI_LEGACY)}
    cleaned, findings = check_value(details, default_check, source="tool_output")
    assert cleaned == {
        "results": [{"title": "x", "snippet": "leaked xoxb-…[masked]"}],
        "count": 1,
        "pair": ("ok", "sk-A…[masked]"),
    }
    assert [f.kind for f in findings] == ["slack_token", "openai_key"]
    assert details["count"] == 1 and SLACK in details["results"][0]["snippet"]


def test_custom_pattern_set() -> None:
    only_aws = SecretMasker([p for p in SecretMasker().patterns if p.kind.startswith("aws")])
    assert only_aws(f"{AWS_ID} {OPENAI_LEGACY}").text == f"AKIAI…[masked] {OPENAI_LEGACY}"
