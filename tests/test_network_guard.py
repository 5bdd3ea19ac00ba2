"""The conftest guard itself: non-local hosts fail loudly, 127.0.0.1 works."""

import socket

import pytest

from agent_core.models import OpenAIChatModel
from agent_core.models.chat import ModelRequest, complete
from tests.conftest import NetworkBlocked


def test_non_local_connect_fails_loudly() -> None:
    with pytest.raises(NetworkBlocked), socket.create_connection(("93.184.216.34", 443), timeout=1):
        pass


def test_non_local_name_resolution_fails_loudly() -> None:
    with pytest.raises(NetworkBlocked):
        socket.getaddrinfo("api.openai.com", 443)


def test_openai_client_cannot_reach_the_real_api() -> None:
    model = OpenAIChatModel("gpt-4o-mini", api_key="sk-test", max_retries=0, timeout=2)
    with pytest.raises(NetworkBlocked):
        complete(model, ModelRequest([{"role": "user", "content": "hi"}]))


def test_loopback_is_allowed() -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    with socket.create_connection(server.getsockname(), timeout=1):
        pass
    server.close()
