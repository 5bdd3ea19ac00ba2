"""The operator's key goes only to the operator's endpoints; a URL a user types gets only a key the user typed.

Two real fake servers stand in for the operator's endpoint and for one a user typed (an attacker collecting
keys); each records the ``Authorization`` header of every request it receives.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from agent_core.models import ModelError, OpenAIChatModel
from agent_core.models.endpoints import EndpointPolicy, OperatorEndpoint, endpoint_identity
from agent_core.runtime.run_settings import RunSettings
from agent_core.testing import FakeOpenAIServer
from agent_core.tools.network.http import AddressPolicy
from sparrow_ui.access import auth
from sparrow_ui.shell.state import ModelConfig

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
OPERATOR_KEY = "sk-operator-secret-0123456789"
TYPED_KEY = "sk-typed-by-the-user-987654"
ANSWER = "Thought: done\nFinal Answer: 42"
AUTH = {
    "redirect_uri": "http://localhost:8501/oauth2callback",
    "cookie_secret": "a-test-cookie-secret",
    "client_id": "sparrow",
    "client_secret": "secret",
    "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
}
ALICE = {"sub": "sub-alice", "email": "alice@example.com", "iss": "https://id.example.com", "is_logged_in": True}


@pytest.fixture
def operator() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(lambda body: ANSWER) as server:
        yield server


@pytest.fixture
def typed() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(lambda body: ANSWER) as server:
        yield server


def operator_env(monkeypatch: pytest.MonkeyPatch, operator: FakeOpenAIServer) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", operator.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", OPERATOR_KEY)


def app(monkeypatch: pytest.MonkeyPatch, *, signed_in: bool, sparrow: dict[str, Any] | None = None) -> AppTest:
    """The app, single-user or with sign-in (Alice signed in), run once."""
    at = AppTest.from_file(APP, default_timeout=30)
    if signed_in:
        monkeypatch.setattr(auth, "user_claims", lambda: ALICE)
        at.secrets["auth"] = AUTH
    if sparrow is not None:
        at.secrets["sparrow"] = sparrow
    at.run()
    assert not at.exception, at.exception
    return at


def type_endpoint(at: AppTest, url: str, key: str = "") -> None:
    at.text_input(key="cfg_base_url").set_value(url).run()
    at.text_input(key="cfg_model").set_value("fake-model").run()
    at.text_input(key="cfg_api_key").set_value(key).run()
    assert not at.exception, at.exception


def press_test_and_ask(at: AppTest) -> None:
    """Press Test connection, then ask a question."""
    at.button(key="cfg_test").click().run()
    at.chat_input[0].set_value("What is 6*7?").run()
    assert not at.exception, at.exception


PRIVATE_OK = {"allowed_endpoint_networks": ["127.0.0.1/32"]}


@pytest.mark.parametrize("signed_in", [False, True])
def test_a_typed_url_never_gets_the_operators_key(
    monkeypatch: pytest.MonkeyPatch, operator: FakeOpenAIServer, typed: FakeOpenAIServer, signed_in: bool
) -> None:
    operator_env(monkeypatch, operator)
    at = app(monkeypatch, signed_in=signed_in, sparrow=PRIVATE_OK)
    for url in (typed.base_url, typed.base_url + "/", typed.base_url.replace("127.0.0.1", "localhost")):
        type_endpoint(at, url)
        press_test_and_ask(at)
    assert typed.keys_seen and OPERATOR_KEY not in " ".join(str(k) for k in typed.keys_seen)
    type_endpoint(at, typed.base_url, TYPED_KEY)
    press_test_and_ask(at)
    assert typed.keys_seen[-1] == f"Bearer {TYPED_KEY}"
    assert operator.keys_seen == []  # nothing went to the operator meanwhile
    type_endpoint(at, operator.base_url + "/")  # the operator's own endpoint: its key goes with it
    press_test_and_ask(at)
    assert operator.keys_seen and set(operator.keys_seen) == {f"Bearer {OPERATOR_KEY}"}
    assert OPERATOR_KEY not in " ".join(str(k) for k in typed.keys_seen)


def test_each_listed_endpoint_gets_only_its_own_key(
    monkeypatch: pytest.MonkeyPatch, operator: FakeOpenAIServer, typed: FakeOpenAIServer
) -> None:
    listed = {"label": "Team", "base_url": typed.base_url, "api_key": "sk-team-key-1234567", "models": ["fake-model"]}
    operator_env(monkeypatch, operator)
    at = app(monkeypatch, signed_in=True, sparrow={"endpoints": [listed]})
    assert "Team · this server's" in at.selectbox(key="cfg_provider").options
    at.selectbox(key="cfg_provider").set_value("operator1").run()
    press_test_and_ask(at)
    assert set(typed.keys_seen) == {"Bearer sk-team-key-1234567"} and operator.keys_seen == []


def test_with_sign_in_a_typed_url_must_be_a_public_address(
    monkeypatch: pytest.MonkeyPatch, operator: FakeOpenAIServer, typed: FakeOpenAIServer
) -> None:
    operator_env(monkeypatch, operator)
    at = app(monkeypatch, signed_in=True)
    type_endpoint(at, typed.base_url, TYPED_KEY)
    press_test_and_ask(at)
    assert typed.keys_seen == []
    assert any("not allowed here" in e.value and "loopback" in e.value for e in at.error)


def test_single_user_mode_reaches_a_local_server_without_a_key(
    monkeypatch: pytest.MonkeyPatch, typed: FakeOpenAIServer
) -> None:
    at = app(monkeypatch, signed_in=False)
    type_endpoint(at, typed.base_url)
    at.button(key="cfg_test").click().run()
    assert [s.value for s in at.success] and not at.error
    press_test_and_ask(at)
    assert len(typed.keys_seen) >= 3 and set(typed.keys_seen) == {"Bearer sk-no-key-required"}


def test_locked_settings_use_the_operators_endpoint_whatever_the_tab_holds(
    monkeypatch: pytest.MonkeyPatch, operator: FakeOpenAIServer, typed: FakeOpenAIServer
) -> None:
    operator_env(monkeypatch, operator)
    monkeypatch.setenv("SPARROW_MODEL", "fake-model")
    at = app(monkeypatch, signed_in=True, sparrow={"lock_model_settings": True})
    assert not [w for w in at.text_input if w.key in ("cfg_base_url", "cfg_api_key", "cfg_model")]
    forged = at.session_state["_sparrow_settings"].changed(base_url=typed.base_url)
    at.session_state["_sparrow_settings"] = forged  # even a forged tab state
    press_test_and_ask(at)
    assert typed.keys_seen == [] and set(operator.keys_seen) == {f"Bearer {OPERATOR_KEY}"}


def test_dns_rebinding_is_caught_at_connect_time(monkeypatch: pytest.MonkeyPatch, typed: FakeOpenAIServer) -> None:
    """The name looks public when the URL is checked, then resolves to loopback when the client connects."""
    import agent_core.models.endpoints as endpoints

    monkeypatch.setattr(endpoints, "resolve", lambda host, port, timeout: ["93.184.216.34"])
    policy = EndpointPolicy(guard_addresses=True)
    url = typed.base_url.replace("127.0.0.1", "localhost")
    config = ModelConfig(RunSettings(provider="custom", base_url=url, model="fake-model"), TYPED_KEY, policy)
    model = config.chat_model()
    with pytest.raises(ModelError, match="loopback"):
        model.list_models()
    assert typed.keys_seen == []


URL_PARTS = st.tuples(
    st.sampled_from(["http", "https", "HTTP", "ftp"]),
    st.sampled_from(["api.example.com", "API.example.com", "api.example.com.", "evil.example", "1.2.3.4"]),
    st.sampled_from(["", ":443", ":8443", ":80"]),
    st.sampled_from(["/v1", "/v1/", "/v2", "", "/v1/../v1"]),
    st.sampled_from(["", "?x=1", "#f"]),
    st.sampled_from(["", "user@", "u:p@"]),
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=URL_PARTS, typed_key=st.sampled_from([None, "", TYPED_KEY]))
def test_the_key_sent_is_the_typed_one_or_the_matching_endpoints(
    parts: tuple[str, str, str, str, str, str], typed_key: str | None
) -> None:
    scheme, host, port, path, tail, userinfo = parts
    url = f"{scheme}://{userinfo}{host}{port}{path}{tail}"
    policy = EndpointPolicy((OperatorEndpoint("https://api.example.com/v1", OPERATOR_KEY),))
    connection = policy.connection(url, typed_key)
    same = endpoint_identity(url) == ("https", "api.example.com", 443, "/v1")
    if typed_key:
        assert connection.api_key == typed_key
    else:
        assert connection.api_key == (OPERATOR_KEY if same else None)
    if connection.api_key == OPERATOR_KEY:
        assert not userinfo and not tail and host.lower().rstrip(".") == "api.example.com" and port in ("", ":443")


NON_PUBLIC = st.sampled_from(
    [
        *["127.0.0.1", "127.8.9.10", "10.0.0.5", "192.168.1.1", "172.16.0.9", "169.254.169.254", "[::1]", "0.0.0.0"],
        *["[::ffff:127.0.0.1]", "2130706433", "0x7f.1", "localhost", "[fe80::1]", "100.64.0.1"],
    ]
)


@settings(max_examples=60)
@given(host=NON_PUBLIC, key=st.sampled_from([None, TYPED_KEY]))
def test_with_sign_in_no_typed_url_reaches_a_non_public_address(host: str, key: str | None) -> None:
    url = f"http://{host}:8000/v1"
    with pytest.raises(ModelError, match="not allowed here"):
        EndpointPolicy(guard_addresses=True).connection(url, key)
    assert EndpointPolicy(guard_addresses=False).connection(url, key).address_policy is None  # single-user mode
    allowed = EndpointPolicy(guard_addresses=True, addresses=AddressPolicy(allow_private=True))
    assert allowed.connection(url, key).api_key == key


def test_no_page_builds_a_model_client_but_through_the_policy() -> None:
    """``ModelConfig.chat_model`` is the one place the app makes a client: run, Test connection, Compare, resume."""
    builders = []
    for path in [*ROOT.joinpath("sparrow_ui").rglob("*.py"), *ROOT.joinpath("pages").glob("*.py"), ROOT / "app.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and "OpenAIChatModel" in ast.unparse(node.func):
                builders.append(path.name)
    assert builders == ["state.py"]


def test_the_cli_still_takes_its_key_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPERATOR_KEY)
    assert OpenAIChatModel("m", base_url="http://127.0.0.1:9/v1")._client.api_key == OPERATOR_KEY
    assert OpenAIChatModel("m", base_url="http://127.0.0.1:9/v1", use_environment=False)._client.api_key != (
        OPERATOR_KEY
    )


def test_a_locked_policy_holds_whatever_config_reaches_the_client(typed: FakeOpenAIServer) -> None:
    """Compare's rerun form may change the model name of a config: a locked policy still decides (at chat_model)."""
    first = OperatorEndpoint("http://127.0.0.1:9/v1", OPERATOR_KEY, "ops", ("ops-model",))
    policy = EndpointPolicy((first,), locked=True)
    forged = ModelConfig(
        RunSettings(provider="custom", base_url=typed.base_url, model="other-model"), TYPED_KEY, policy
    )
    model = forged.chat_model()
    assert (model.endpoint, model.name, model._client.api_key) == ("http://127.0.0.1:9/v1", "ops-model", OPERATOR_KEY)
