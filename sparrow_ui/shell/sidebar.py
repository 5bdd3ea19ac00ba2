"""The sidebar shared by every page: language, model endpoint and agent settings."""

from __future__ import annotations

import streamlit as st

from agent_core.models import DEFAULT_MODEL, ModelError
from agent_core.models.endpoints import OPENAI_API, PROVIDERS, EndpointPolicy, Provider, provider
from agent_core.runtime.run_settings import RunSettings
from sparrow_ui.access.auth import read_only
from sparrow_ui.access.sign_in import gate
from sparrow_ui.elements.full_text import full_text_on_hover
from sparrow_ui.elements.widgets import translated_radio
from sparrow_ui.shell import settings
from sparrow_ui.shell.endpoint_config import endpoint_policy
from sparrow_ui.shell.navigation import through_app
from sparrow_ui.shell.state import ModelConfig, available_tools, shared_store
from sparrow_ui.steps.repeat_status import repeat_policy_control
from sparrow_ui.translations.i18n import LANGUAGES, lang, t

VIEW_ONLY = ModelConfig(RunSettings(tools=()))
"""A share link's tab: no model, so nothing can be run (and no settings are drawn)."""


def frame() -> ModelConfig:
    """What every page starts with: app.py's navigation around it, and the sidebar (language, model, agent).

    Returns the model configuration.
    """
    through_app()
    gate(shared_store())
    language_picker()
    full_text_on_hover()
    return VIEW_ONLY if read_only() else model_settings()


def language_picker() -> None:
    """English / 简体中文 (kept across pages by sparrow_ui.shell.settings, across reloads in the URL)."""
    settings.keep_language_in_url()
    st.session_state[settings.LANGUAGE] = lang()
    st.sidebar.segmented_control(
        t("lang"),
        list(LANGUAGES),
        format_func=LANGUAGES.__getitem__,
        key=settings.LANGUAGE,
        label_visibility="collapsed",
        on_change=_keep_a_language,
    )


def _keep_a_language() -> None:
    # Clicking the selected option deselects it; keep the language instead.
    chosen = st.session_state.get(settings.LANGUAGE)
    settings.put(settings.LANGUAGE, chosen or lang())
    settings.keep_language_in_url()


def model_settings() -> ModelConfig:
    """Provider, endpoint, model, key, protocol and guards, as a ModelConfig."""
    policy = endpoint_policy()
    title = policy.model if policy.locked and policy.model else settings.get("cfg_model")
    with st.sidebar.expander(f"{t('model.header')} · {title}", icon=":material/tune:"):
        if policy.locked:
            _locked_settings(policy)
        else:
            _endpoint_settings(policy)
    with st.sidebar.expander(t("agent.header"), icon=":material/psychology:"):
        _agent_settings()
    return _config(policy)


def _locked_settings(policy: EndpointPolicy) -> None:
    """What the operator fixed: shown, not editable; Test connection still works."""
    config = _config(policy)
    st.caption(t("model.locked", url=config.run.base_url or OPENAI_API, model=config.run.model))
    if st.button(t("model.test"), key="cfg_test", width="stretch"):
        _test_connection(config)


def _endpoint_settings(policy: EndpointPolicy) -> None:
    """Provider, base URL, model and key, and the Test connection button."""
    presets = presets_for(policy)
    st.selectbox(
        t("model.provider"),
        list(presets),
        format_func=lambda key: presets.get(key, provider(key)).label,
        **settings.bound("cfg_provider", on_change=lambda: _apply_preset(presets)),
    )
    st.text_input(t("model.base_url"), placeholder="https://api.openai.com/v1", **settings.bound("cfg_base_url"))
    chosen = presets.get(settings.get("cfg_provider"), provider(settings.get("cfg_provider")))
    st.text_input(t("model.name"), help=", ".join(chosen.models) or None, **settings.bound("cfg_model"))
    st.text_input(
        t("model.key"),
        **settings.bound(settings.SECRET),
        type="password",
        placeholder=chosen.key_hint or "—",
        help=t("model.key_help"),
    )
    _key_note(policy)
    if st.button(t("model.test"), key="cfg_test", width="stretch"):
        _test_connection(_config(policy))


def _key_note(policy: EndpointPolicy) -> None:
    """Whether the server's key goes to the chosen URL (only to the operator's endpoints)."""
    if settings.get(settings.SECRET) or not any(e.api_key for e in policy.endpoints):
        return
    url = settings.current().base_url or (policy.endpoints[0].base_url if policy.endpoints else None)
    chosen = policy.operator_endpoint(url)
    st.caption(t("model.key_from_env") if chosen is not None and chosen.api_key else t("model.key_not_sent"))


def presets_for(policy: EndpointPolicy) -> dict[str, Provider]:
    """The provider list: the operator's endpoints (with their keys on the server) first, then the presets."""
    operator = {
        f"operator{i}": Provider(f"operator{i}", f"{e.label} · {t('model.operator')}", e.base_url or "", e.models)
        for i, e in enumerate(policy.endpoints)
        if e.base_url
    }
    return {**operator, **{p.key: p for p in PROVIDERS}}


def _agent_settings() -> None:
    """Protocol, step limit, temperature, enabled tools and tool retrieval."""
    st.session_state.setdefault("cfg_protocol", settings.get("cfg_protocol"))
    protocol = translated_radio(
        t("agent.protocol"),
        ["react", "tools", "json"],
        key="cfg_protocol",
        default="react",
        format_func=lambda p: t(f"agent.protocol.{p}"),
        horizontal=True,
    )
    if protocol != settings.get("cfg_protocol"):
        settings.put("cfg_protocol", protocol)
    steps, heat, offered, tokens = (settings.RANGES[name] for name in settings.RANGES)
    st.slider(t("agent.max_steps"), int(steps[0]), int(steps[1]), **settings.bound("cfg_max_steps"))
    st.slider(t("agent.temperature"), heat[0], heat[1], step=0.1, **settings.bound("cfg_temperature"))
    st.multiselect(t("agent.tools"), list(available_tools()), **settings.bound("cfg_tools"))
    every = t("agent.max_tools_all")
    st.number_input(t("agent.max_tools"), int(offered[0]), int(offered[1]), placeholder=every,
                    help=t("agent.max_tools_help"), **settings.bound("cfg_max_tools"))  # fmt: skip
    st.number_input(t("agent.max_tokens"), int(tokens[0]), int(tokens[1]), step=256, **settings.bound("cfg_max_tokens"))
    st.session_state.setdefault("cfg_repeat_policy", settings.get("cfg_repeat_policy"))  # a reload keeps it too
    repeat_policy_control()


def _apply_preset(presets: dict[str, Provider]) -> None:
    settings.put("cfg_provider", st.session_state["cfg_provider"])
    chosen = presets.get(settings.get("cfg_provider"), provider(settings.get("cfg_provider")))
    settings.put("cfg_base_url", chosen.base_url or "")
    if chosen.models:
        settings.put("cfg_model", chosen.models[0])


def _config(policy: EndpointPolicy) -> ModelConfig:
    """This tab's settings, typed key and the policy (locked: the operator's endpoint and model, whatever it holds)."""
    chosen, key = settings.current(), settings.typed_key().strip() or None
    if policy.locked:  # chat_model insists too
        url, key, model = policy.pinned(chosen.base_url, key, DEFAULT_MODEL)
        chosen = chosen.changed(provider="custom", base_url=url, model=model)
    return ModelConfig(chosen, api_key=key, endpoints=policy)


def _test_connection(config: ModelConfig) -> None:
    try:
        model = config.chat_model()
        models = model.list_models()
    except ModelError as exc:
        st.error(t("model.test_failed", error=str(exc)))
        return
    if models and config.run.model not in models:
        st.warning(t("model.test_model_missing", url=model.endpoint, model=config.run.model))
    else:
        st.success(t("model.test_ok", url=model.endpoint, count=len(models)))
