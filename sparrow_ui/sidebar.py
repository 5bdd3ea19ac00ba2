"""The sidebar shared by every page: language, model endpoint and agent settings."""

from __future__ import annotations

import os

import streamlit as st

from agent_core.models import DEFAULT_MODEL, ModelError
from agent_core.providers import PROVIDERS, guess_provider, provider
from sparrow_ui.i18n import LANGUAGES, t
from sparrow_ui.navigation import through_app
from sparrow_ui.state import ModelConfig, available_tools, secret_key
from sparrow_ui.widgets import translated_radio


def frame() -> ModelConfig:
    """What every page starts with: app.py's navigation around it, and the sidebar (language, model, agent).

    Returns the model configuration.
    """
    through_app()
    language_picker()
    return model_settings()


def language_picker() -> None:
    """English / 简体中文."""
    st.session_state.setdefault("lang_choice", "en")
    st.sidebar.segmented_control(
        t("lang"),
        list(LANGUAGES),
        format_func=LANGUAGES.get,
        key="lang_choice",
        label_visibility="collapsed",
        on_change=_keep_a_language,
    )


def _keep_a_language() -> None:
    # Clicking the selected option deselects it; keep the language instead.
    if st.session_state.get("lang_choice") is None:
        st.session_state["lang_choice"] = st.session_state.get("_last_lang", "en")
    st.session_state["_last_lang"] = st.session_state["lang_choice"]


def model_settings() -> ModelConfig:
    """Provider, endpoint, model, key, protocol and guards, as a ModelConfig."""
    _defaults()
    env_key = secret_key()
    with st.sidebar.expander(f"{t('model.header')} · {st.session_state.cfg_model}", icon=":material/tune:"):
        _endpoint_settings(env_key)
    with st.sidebar.expander(t("agent.header"), icon=":material/psychology:"):
        _agent_settings()
    return _config(env_key)


def _endpoint_settings(env_key: str | None) -> None:
    """Provider, base URL, model and key, and the Test connection button."""
    st.selectbox(
        t("model.provider"),
        [p.key for p in PROVIDERS],
        format_func=lambda key: provider(key).label,
        key="cfg_provider",
        on_change=_apply_preset,
    )
    st.text_input(t("model.base_url"), key="cfg_base_url", placeholder="https://api.openai.com/v1")
    chosen = provider(st.session_state.cfg_provider)
    st.text_input(t("model.name"), key="cfg_model", help=", ".join(chosen.models) or None)
    st.text_input(
        t("model.key"),
        key="cfg_api_key",
        type="password",
        placeholder=chosen.key_hint or "—",
        help=t("model.key_help"),
    )
    if env_key and not st.session_state.cfg_api_key:
        st.caption(t("model.key_from_env"))
    if st.button(t("model.test"), key="cfg_test", use_container_width=True):
        _test_connection(_config(env_key))


def _agent_settings() -> None:
    """Protocol, step limit, temperature, enabled tools and tool retrieval."""
    translated_radio(
        t("agent.protocol"),
        ["react", "tools", "json"],
        key="cfg_protocol",
        default="react",
        format_func=lambda p: t(f"agent.protocol.{p}"),
        horizontal=True,
    )
    st.slider(t("agent.max_steps"), 1, 30, key="cfg_max_steps")
    st.slider(t("agent.temperature"), 0.0, 1.5, step=0.1, key="cfg_temperature")
    st.multiselect(t("agent.tools"), list(available_tools()), key="cfg_tools")
    st.number_input(t("agent.max_tools"), 0, 50, key="cfg_max_tools", help=t("agent.max_tools_help"))
    st.number_input(t("agent.max_tokens"), 16, 200_000, step=256, key="cfg_max_tokens")


def _defaults() -> None:
    state = st.session_state
    if "cfg_provider" in state:
        return
    env_url = os.environ.get("OPENAI_BASE_URL") or None
    guessed = guess_provider(env_url)
    state.cfg_provider = guessed.key
    state.cfg_base_url = env_url or (guessed.base_url if guessed.key != "openai" else "") or ""
    state.cfg_model = os.environ.get("SPARROW_MODEL") or (guessed.models[0] if guessed.models else DEFAULT_MODEL)
    state.cfg_api_key = ""
    state.cfg_protocol = "react"
    state.cfg_max_steps = 10
    state.cfg_temperature = 0.0
    state.cfg_tools = list(available_tools())
    state.cfg_max_tools = 0
    state.cfg_max_tokens = 4096


def _apply_preset() -> None:
    chosen = provider(st.session_state.cfg_provider)
    st.session_state.cfg_base_url = chosen.base_url or ""
    if chosen.models:
        st.session_state.cfg_model = chosen.models[0]


def _config(env_key: str | None) -> ModelConfig:
    state = st.session_state
    return ModelConfig(
        provider=state.cfg_provider,
        base_url=(state.cfg_base_url or "").strip() or None,
        model=(state.cfg_model or "").strip() or DEFAULT_MODEL,
        api_key=(state.cfg_api_key or "").strip() or env_key,
        protocol=state.cfg_protocol,
        max_steps=int(state.cfg_max_steps),
        temperature=float(state.cfg_temperature),
        tools=tuple(state.cfg_tools),
        max_tools=int(state.get("cfg_max_tools") or 0),
        max_tokens=int(state.get("cfg_max_tokens") or 4096),
        tool_approval=tuple(sorted((state.get("cfg_tool_approval") or {}).items())),
    )


def _test_connection(config: ModelConfig) -> None:
    try:
        model = config.chat_model()
        models = model.list_models()
    except ModelError as exc:
        st.error(t("model.test_failed", error=str(exc)))
        return
    if models and config.model not in models:
        st.warning(t("model.test_model_missing", url=model.endpoint, model=config.model))
    else:
        st.success(t("model.test_ok", url=model.endpoint, count=len(models)))
