"""A configuration's ``api_key_env`` names only a model key (never the app's settings or a credential), and its base
URL passes the app's endpoint policy: the operator's key only to the operator's endpoint, other URLs only to public
addresses unless the operator allows more. The CLI refuses with one sentence and exit 2; a worker's unit is an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.cli import main
from agent_core.experiments import DatasetItem, ExperimentRunner, RunConfig, create_dataset, create_experiment
from agent_core.experiments.configs import ConfigFileError, checked_connection, key_env_problem, parse_configs
from agent_core.experiments.results import unit_results
from agent_core.testing import FakeOpenAIServer
from agent_core.testing.rule_llm import rule_reply
from tests.experiments.helpers import file_store

OPERATOR = {"OPENAI_BASE_URL": "https://llm.example.com/v1", "OPENAI_API_KEY": "sk-operator", "MY_API_KEY": "sk-mine"}


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "DEEPSEEK_API_KEY", "GROQ_KEY", "openrouter_api_key"])
def test_model_key_names_are_allowed(name: str) -> None:
    assert key_env_problem(name, {}) is None


@pytest.mark.parametrize(
    "name",
    [
        *("DATABASE_URL", "HOME", "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "SPARROW_SHARE_KEY", "STREAMLIT_KEY"),
        *("SECRET_KEY", "GITHUB_TOKEN", "SIGNING_KEY", "PGPASSWORD", "GOOGLE_API_KEY_PRIVATE", "SESSION_KEY"),
    ],
)
def test_other_variables_are_refused(name: str) -> None:
    problem = key_env_problem(name, {})
    assert problem is not None and problem.startswith(f"api_key_env {name!r} ") and problem.count(".") <= 1


def test_the_operator_can_list_more_names_but_never_the_apps_own() -> None:
    listed = {"SPARROW_EVAL_KEY_ENVS": "LLM_CREDENTIAL, SPARROW_ADMINS"}
    assert key_env_problem("LLM_CREDENTIAL", listed) is None
    assert key_env_problem("LLM_CREDENTIAL", {}) is not None
    assert key_env_problem("SPARROW_ADMINS", listed) is not None


def test_a_config_file_naming_a_secret_is_refused_with_its_place() -> None:
    text = '[[config]]\nmodel = "m"\n\n[[config]]\nmodel = "m"\napi_key_env = "DATABASE_URL"\n'
    with pytest.raises(ConfigFileError) as caught:
        parse_configs(text, "evil.toml")
    assert str(caught.value) == (
        "evil.toml, config 2: api_key_env 'DATABASE_URL' names one of the app's settings or a credential, never sent "
        "to a model endpoint"
    )
    with pytest.raises(ConfigFileError, match=r"^c.toml, config 1: api_key_env 'HOME' is not a model key: name a "):
        parse_configs('model = "m"\napi_key_env = "HOME"\n', "c.toml")


def test_the_operators_key_goes_only_to_the_operators_endpoint() -> None:
    mine = checked_connection(None, "OPENAI_API_KEY", "c", OPERATOR)
    assert (mine.base_url, mine.api_key, mine.address_policy) == (
        "https://llm.example.com/v1/",
        "sk-operator",
        None,
    ) or (mine.base_url, mine.api_key, mine.address_policy) == ("https://llm.example.com/v1", "sk-operator", None)
    elsewhere = checked_connection("https://8.8.8.8/v1", "OPENAI_API_KEY", "c", OPERATOR)
    assert elsewhere.api_key is None and elsewhere.address_policy is not None
    own_key = checked_connection("https://8.8.8.8/v1", "MY_API_KEY", "c", OPERATOR)
    assert own_key.api_key == "sk-mine" and own_key.address_policy is not None


@pytest.mark.parametrize("url", ["http://169.254.169.254/v1", "http://10.0.0.5:8000/v1", "http://127.0.0.1:9/v1"])
def test_a_base_url_to_a_private_address_is_refused_unless_allowed(url: str) -> None:
    with pytest.raises(ConfigFileError, match=r"^c: This base URL is not allowed here: .* only public internet"):
        checked_connection(url, "MY_API_KEY", "c", OPERATOR)
    allowed = {**OPERATOR, "SPARROW_ALLOWED_ENDPOINT_NETWORKS": "169.254.0.0/16,10.0.0.0/8,127.0.0.1/32"}
    assert checked_connection(url, "MY_API_KEY", "c", allowed).api_key == "sk-mine"
    assert checked_connection(url, "MY_API_KEY", "c", {**OPERATOR, "SPARROW_ALLOW_PRIVATE_ENDPOINTS": "1"})


def test_eval_run_refuses_a_secret_or_a_private_url_with_exit_2_and_stores_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SPARROW_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'data.db'}")
    data = tmp_path / "one.jsonl"
    data.write_text('{"id": "a", "question": "What is 1 + 1?", "expect": {"number": 2}}\n', encoding="utf-8")
    assert main(["eval", "datasets", "import", str(data)]) == 0
    config = tmp_path / "evil.toml"
    config.write_text('model = "m"\nbase_url = "https://8.8.8.8/v1"\napi_key_env = "DATABASE_URL"\n', encoding="utf-8")
    capsys.readouterr()
    assert main(["eval", "run", "one", "--config", str(config)]) == 2
    refused = "evil.toml, config 1: api_key_env 'DATABASE_URL' names one of the app's settings or a credential"
    assert capsys.readouterr().err.strip().endswith(refused + ", never sent to a model endpoint")
    assert main(["eval", "run", "one", "--model", "m", "--base-url", "http://169.254.169.254/v1"]) == 2
    assert "This base URL is not allowed here: 169.254.169.254 is" in capsys.readouterr().err
    assert main(["eval", "run", "one", "--model", "m", "--api-key-env", "AWS_SECRET_ACCESS_KEY"]) == 2
    assert "api_key_env 'AWS_SECRET_ACCESS_KEY' names one of the app's settings" in capsys.readouterr().err
    assert main(["eval", "list"]) == 0 and capsys.readouterr().out.strip() == "no experiments"


def test_a_stored_config_a_worker_runs_is_checked_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A configuration written to the store directly (not through the CLI) is refused when its unit runs."""
    with FakeOpenAIServer(rule_reply) as server:
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-operator")
        monkeypatch.setenv("BENCH_API_KEY", "sk-bench")
        store = file_store(tmp_path)
        create_dataset(store, "one", [DatasetItem(id="a", question="What is 1 + 1?", expect={"number": 2})])
        configs = [
            RunConfig(name="secret", model="m", base_url=server.base_url, api_key_env="PGPASSWORD"),
            RunConfig(name="loopback", model="m", base_url=server.base_url),
        ]
        info = create_experiment(store, "one", configs)
        ExperimentRunner(store, info.id).run()  # the default factory, as a worker
        reasons = [u.scores[0]["reason"] for u in unit_results(store, info.id)]
        assert not server.requests
        monkeypatch.setenv("SPARROW_ALLOWED_ENDPOINT_NETWORKS", "127.0.0.1/32")
        allowed = create_experiment(store, "one", [RunConfig(name="ok", model="gpt-4o-mini", base_url=server.base_url,
                                                             api_key_env="BENCH_API_KEY")])  # fmt: skip
        ExperimentRunner(store, allowed.id).run()
        assert unit_results(store, allowed.id)[0].passed and set(server.keys_seen) == {"Bearer sk-bench"}
    assert reasons[0].startswith("the item could not be run: ConfigFileError: secret: api_key_env 'PGPASSWORD'")
    assert "loopback: This base URL is not allowed here: 127.0.0.1 is" in reasons[1]
