"""Sign-in with a real OpenID Connect provider (oidc-provider-mock on 127.0.0.1), in a real browser.

Two users sign in through the provider's own authorization form; neither can list, open by URL, export or
resume the other's sessions, nor read the other's memories; a share link shows a session read-only to someone
not signed in and stops working once revoked; a link for signed-in viewers opens once its visitor has signed in;
Sign out signs out.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
import werkzeug.serving
from playwright.sync_api import expect

from agent_core.testing import FakeOpenAIServer
from agent_core.testing.rule_llm import rule_reply
from tests.e2e.conftest import _free_port, open_page, press, shot, streamlit_server, wait_for_app

SIX_BY_SEVEN = "What is 6*7?"
ANSWER = "The result is 42."


@pytest.fixture(scope="module")
def provider() -> Iterator[str]:
    """oidc-provider-mock's Flask app served on 127.0.0.1 in a thread; its issuer URL."""
    oidc_provider_mock = pytest.importorskip("oidc_provider_mock")
    server = werkzeug.serving.make_server("127.0.0.1", 0, oidc_provider_mock.app(), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.fixture(scope="module")
def auth_app(fake_llm: FakeOpenAIServer, provider: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app with an ``[auth]`` section pointing at the provider (its own data directory and secrets file)."""
    port = _free_port()
    secrets = tmp_path_factory.mktemp("auth-secrets") / "secrets.toml"
    secrets.write_text(
        "[auth]\n"
        f'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        'cookie_secret = "e2e-cookie-secret-0123456789abcdef"\n'
        'client_id = "sparrow-e2e"\n'
        'client_secret = "sparrow-e2e-secret"\n'
        f'server_metadata_url = "{provider}/.well-known/openid-configuration"\n'
        "[sparrow]\n"
        'allowed_endpoint_networks = ["127.0.0.1/32"]\n',  # so a typed loopback URL is reached (and counted)
        encoding="utf-8",
    )
    logs = tmp_path_factory.mktemp("auth-logs") / "streamlit.log"
    options = ("--secrets.files", str(secrets))
    with streamlit_server(fake_llm, tmp_path_factory.mktemp("auth-data"), logs, port=port, options=options) as url:
        yield url


def sign_in(browser, url: str, user: str):  # type: ignore[no-untyped-def]
    """A fresh browser context signed in as ``user`` (the provider's form); returns its page."""
    context = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.goto(url)
    page.get_by_role("heading", name="Sign in to Sparrow").wait_for()
    page.get_by_role("button", name="Sign in").click()
    page.locator('input[name="sub"]').fill(user)
    page.get_by_role("button", name="Authorize").click()
    page.get_by_text(f"Signed in as {user}").wait_for()
    wait_for_app(page)
    return page


def ask(page, question: str) -> None:  # type: ignore[no-untyped-def]
    box = page.get_by_placeholder("Ask anything…")
    box.fill(question)
    box.press("Enter")
    page.get_by_role("group", name="Chat message from assistant").get_by_text(ANSWER).wait_for()
    wait_for_app(page)


def shared_link(browser, url: str, owner: str, *, anyone: bool):  # type: ignore[no-untyped-def]
    """``owner`` signs in, asks a question and shares that session; returns the owner's page and the link."""
    page = sign_in(browser, url, owner)
    ask(page, SIX_BY_SEVEN)
    page.goto(f"{url}/sessions")
    wait_for_app(page)
    page.get_by_role("button", name="Share").first.click()
    if anyone:
        page.get_by_text("Anyone with the link (no sign-in)").click()
    press(page, page.get_by_role("button", name="Create link"))
    return page, page.locator("code").filter(has_text="?share=").first.inner_text().strip()


def test_two_users_see_only_their_own_work_and_sign_out(browser, auth_app: str) -> None:  # type: ignore[no-untyped-def]
    alice = sign_in(browser, auth_app, "alice@example.com")
    shot(alice, "access_01_signed_in")
    ask(alice, SIX_BY_SEVEN)
    alice_url = alice.url
    assert "session=ses_" in alice_url
    alice.goto(f"{auth_app}/memory")
    wait_for_app(alice)
    alice.get_by_label("Fact").fill("Alice's favourite tea is sencha")
    press(alice, alice.get_by_role("button", name="Save"))
    alice.get_by_text("Alice's favourite tea is sencha").first.wait_for()

    bob = sign_in(browser, auth_app, "bob@example.com")
    bob.goto(f"{auth_app}/sessions")
    wait_for_app(bob)
    bob.get_by_text("No saved sessions yet.").wait_for()
    bob.goto(alice_url.replace(alice_url.split("?")[0], f"{auth_app}/"))  # Alice's session by its URL
    wait_for_app(bob)
    bob.get_by_text("does not exist, or it is not yours").wait_for()
    wait_for_app(bob)  # drawn to the end: an absence below is not merely a late arrival
    assert bob.get_by_text(SIX_BY_SEVEN).count() == 0
    assert bob.get_by_role("button", name="Download session").count() == 0
    assert bob.get_by_role("button", name="Resume the run").count() == 0
    bob.goto(f"{auth_app}/memory")
    wait_for_app(bob)
    bob.get_by_text("No memories in this scope yet", exact=False).first.wait_for()
    wait_for_app(bob)  # drawn to the end: an absence below is not merely a late arrival
    assert bob.get_by_text("sencha").count() == 0
    shot(bob, "access_02_bob_sees_nothing_of_alice")

    bob.get_by_role("button", name="Sign out").click()
    bob.get_by_role("button", name="End session").click()  # the provider's own sign-out page
    bob.get_by_role("heading", name="Sign in to Sparrow").wait_for()
    bob.goto(f"{auth_app}/sessions")  # signed out everywhere in the app, not just on one page
    bob.get_by_role("heading", name="Sign in to Sparrow").wait_for()
    shot(bob, "access_03_signed_out")
    alice.context.close()
    bob.context.close()


def test_a_share_link_is_read_only_and_stops_once_revoked(browser, auth_app: str) -> None:  # type: ignore[no-untyped-def]
    owner, link = shared_link(browser, auth_app, "carol@example.com", anyone=True)
    assert link.startswith(f"{auth_app}/?share=")
    shot(owner, "access_04a_share_menu")

    guest = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    guest.set_default_timeout(30_000)
    guest.goto(link)
    wait_for_app(guest)
    guest.get_by_text("viewing a shared session, read-only").wait_for()
    guest.get_by_text(SIX_BY_SEVEN).first.wait_for()
    shot(guest, "access_04_shared_chat")
    guest.get_by_role("group", name="Chat message from assistant").get_by_text(ANSWER).wait_for()
    open_page(guest, "Traces", "traces")
    guest.get_by_text("Step 1 · calculator").first.wait_for()  # the trace, of the shared session
    wait_for_app(guest)  # drawn to the end: an absence below is not merely a late arrival
    assert guest.get_by_role("button", name="Export").count() == 0
    guest.get_by_role("tab", name="Replay").click()
    guest.locator(".st-key-replay_end button").first.click()  # "Jump to the end"
    guest.get_by_text(ANSWER).first.wait_for()  # the replay plays the shared run
    wait_for_app(guest)
    shot(guest, "access_04b_shared_replay")
    open_page(guest, "Chat", "")
    guest.get_by_text("viewing a shared session, read-only").wait_for()
    wait_for_app(guest)  # drawn to the end: an absence below is not merely a late arrival
    assert guest.get_by_placeholder("Ask anything…").count() == 0
    assert guest.get_by_role("button", name="New chat").count() == 0
    assert guest.get_by_role("link", name="Sessions").count() == 0

    owner.get_by_role("button", name="Revoke").first.click()
    owner.get_by_text("· revoked ·").first.wait_for()  # the server ran the click (a busy one may take seconds)
    wait_for_app(owner)
    guest.goto(link)
    wait_for_app(guest)
    guest.get_by_text("This share link is not valid").wait_for()
    wait_for_app(guest)  # drawn to the end: an absence below is not merely a late arrival
    assert guest.get_by_text(SIX_BY_SEVEN).count() == 0
    shot(guest, "access_05_revoked")
    guest.context.close()
    owner.context.close()


def test_a_share_link_for_signed_in_viewers_opens_once_the_visitor_signed_in(browser, auth_app: str) -> None:  # type: ignore[no-untyped-def]
    owner, link = shared_link(browser, auth_app, "dave@example.com", anyone=False)

    visitor = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    visitor.set_default_timeout(30_000)
    visitor.goto(link)
    visitor.get_by_text("This share link is for signed-in viewers").wait_for()
    wait_for_app(visitor)  # drawn to the end: an absence below is not merely a late arrival
    assert visitor.get_by_text(SIX_BY_SEVEN).count() == 0
    visitor.get_by_role("button", name="Sign in").click()
    visitor.locator('input[name="sub"]').fill("erin@example.com")
    visitor.get_by_role("button", name="Authorize").click()  # the provider sends the tab back to the app's root
    visitor.get_by_text("viewing a shared session, read-only").wait_for()
    visitor.get_by_text(SIX_BY_SEVEN).first.wait_for()
    visitor.get_by_text("Signed in as erin@example.com").wait_for()
    assert "share=" in visitor.url
    visitor.get_by_role("group", name="Chat message from assistant").get_by_text(ANSWER).wait_for()
    wait_for_app(visitor)
    shot(visitor, "access_06_shared_after_sign_in")
    visitor.get_by_role("button", name="Leave the shared view").click()  # and the link is not reopened again
    wait_for_app(visitor)
    visitor.get_by_placeholder("Ask anything…").wait_for()
    visitor.reload()
    wait_for_app(visitor)
    visitor.get_by_placeholder("Ask anything…").wait_for()
    assert "share=" not in visitor.url and visitor.get_by_text(SIX_BY_SEVEN).count() == 0
    visitor.context.close()
    owner.context.close()


def model_settings(page):  # type: ignore[no-untyped-def]
    """The sidebar with its Model expander open."""
    side = page.get_by_test_id("stSidebar")
    expander = side.get_by_test_id("stExpander").filter(has_text="Model ·").first
    if expander.locator("details").get_attribute("open") is None:
        expander.locator("summary").click()
    return side


def test_one_users_base_url_is_not_anothers_and_the_operator_key_stays_home(  # type: ignore[no-untyped-def]
    browser, auth_app: str, fake_llm: FakeOpenAIServer
) -> None:
    with FakeOpenAIServer(rule_reply) as typed:
        operator_before = len(fake_llm.keys_seen)
        frank = sign_in(browser, auth_app, "frank@example.com")
        side = model_settings(frank)
        side.get_by_label("Base URL").fill(typed.base_url)
        side.get_by_label("Base URL").press("Enter")
        wait_for_app(frank)
        side.get_by_text("The server's key is sent only to the endpoints").wait_for()
        side.get_by_role("button", name="Test connection").click()
        side.get_by_text(f"Connected to {typed.base_url}").wait_for()
        ask(frank, SIX_BY_SEVEN)  # answered by the typed server
        shot(frank, "access_07_typed_endpoint")
        assert len(typed.keys_seen) >= 2 and set(typed.keys_seen) == {"Bearer sk-no-key-required"}
        assert len(fake_llm.keys_seen) == operator_before  # nothing went to the operator's endpoint meanwhile

        grace = sign_in(browser, auth_app, "grace@example.com")
        expect(model_settings(grace).get_by_label("Base URL")).to_have_value(fake_llm.base_url)  # not Frank's
        typed_before = len(typed.keys_seen)
        ask(grace, SIX_BY_SEVEN)  # answered by the operator's endpoint, with the operator's key
        shot(grace, "access_08_other_user_default")
        assert len(typed.keys_seen) == typed_before
        assert set(fake_llm.keys_seen[operator_before:]) == {"Bearer sk-e2e-test-key"}
        frank.reload()
        wait_for_app(frank)
        expect(model_settings(frank).get_by_label("Base URL")).to_have_value(typed.base_url)  # Frank's own, kept
        assert "Bearer sk-e2e-test-key" not in typed.keys_seen
        frank.context.close()
        grace.context.close()
