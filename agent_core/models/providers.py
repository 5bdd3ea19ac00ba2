"""Presets for OpenAI-compatible providers: where they live and which models to suggest."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Provider:
    """An OpenAI-compatible endpoint family."""

    key: str
    label: str
    base_url: str | None
    """None for OpenAI's default endpoint; empty for "type your own"."""
    models: tuple[str, ...]
    needs_key: bool = True
    key_hint: str = ""


PROVIDERS: tuple[Provider, ...] = (
    Provider("openai", "OpenAI", None, ("gpt-4o-mini", "gpt-4o", "gpt-4.1-mini", "gpt-4.1"), key_hint="sk-..."),
    Provider(
        "deepseek", "DeepSeek", "https://api.deepseek.com/v1", ("deepseek-chat", "deepseek-reasoner"), key_hint="sk-..."
    ),
    Provider(
        "qwen",
        "Qwen / DashScope (compatible mode)",
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
        ("qwen-plus", "qwen-max", "qwen-turbo"),
        key_hint="sk-...",
    ),
    Provider(
        "moonshot",
        "Moonshot (Kimi)",
        "https://api.moonshot.cn/v1",
        ("moonshot-v1-8k", "moonshot-v1-32k"),
        key_hint="sk-...",
    ),
    Provider("ollama", "Ollama (local)", "http://localhost:11434/v1", ("qwen2.5:7b", "llama3.1:8b"), needs_key=False),
    Provider(
        "local",
        "Built-in small model (offline): SmolLM2-135M, tiny, for trying the loop",
        "",
        ("smollm2-135m",),
        needs_key=False,
    ),
    Provider(
        "custom",
        "vLLM / llama.cpp / custom URL",
        "http://localhost:8000/v1",
        (),
        needs_key=False,
    ),
)


def provider(key: str) -> Provider:
    """The preset with this key (the custom one when unknown)."""
    return next((p for p in PROVIDERS if p.key == key), PROVIDERS[-1])


def guess_provider(base_url: str | None) -> Provider:
    """The preset whose base URL matches (OpenAI when none is set)."""
    if not base_url:
        return PROVIDERS[0]
    normalized = base_url.rstrip("/")
    return next((p for p in PROVIDERS if p.base_url and p.base_url.rstrip("/") == normalized), provider("custom"))
