"""Attach an image in the chat box: the model gets it as an image part, the chat shows its thumbnail."""

from __future__ import annotations

import base64
from pathlib import Path

from agent_core.testing import FakeOpenAIServer
from tests.e2e.conftest import run_settled, shot, wait_for_app

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def test_an_attached_image_reaches_the_model_and_shows_as_a_thumbnail(  # type: ignore[no-untyped-def]
    page, app_url: str, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    image = tmp_path / "dot.png"
    image.write_bytes(PNG)
    page.goto(app_url)
    wait_for_app(page)
    page.get_by_test_id("stChatInput").locator('input[type="file"]').set_input_files(str(image))  # accept_file=True
    page.get_by_text("dot.png").first.wait_for()
    box = page.get_by_placeholder("Ask anything…")
    box.fill("What is 6 * 7?")
    # the file uploads in the background: until it is up, the box does not send (a loaded machine is slow to it)
    page.wait_for_function(
        "() => { const b = document.querySelector('[data-testid=\"stChatInputSubmitButton\"]');"
        " return b && !b.disabled; }"
    )
    box.press("Enter")
    page.get_by_role("group", name="Chat message from assistant").get_by_text("The result is 42.").wait_for()
    run_settled(page)
    sent = [r for r in fake_llm.requests if isinstance(r["messages"][-1].get("content"), list)]
    assert sent, "no request carried content parts"
    parts = sent[0]["messages"][-1]["content"]
    assert parts[0] == {"type": "text", "text": "What is 6 * 7?"}
    assert parts[1]["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(PNG).decode()
    user = page.get_by_role("group", name="Chat message from user")
    user.get_by_role("img").first.wait_for()
    assert user.get_by_text("dot.png").count() >= 1
    shot(page, "attachments-chat")
