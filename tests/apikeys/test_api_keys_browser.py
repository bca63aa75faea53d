"""The API keys screen in a real browser: Debian's headless Chromium driven by
Playwright, against the service on a free 127.0.0.1 port.

Signs in, creates a key on the screen, copies the secret, uses it at GET /v1/me,
sees a validation error as text, rotates (old secret dead) and revokes (new
secret dead).
"""

import json
import re
import urllib.error
import urllib.request

import pytest

from tests.browser import chromium_page, signed_in_page
from tests.support.factories import PASSWORD, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def me_status(base: str, secret: str) -> int:
    request = urllib.request.Request(f"{base}/v1/me", headers={"Authorization": f"Bearer {secret}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            assert json.loads(response.read())["object"] == "user"
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_create_copy_use_rotate_and_revoke_on_the_screen(service):
    user = UserFactory(email="katherine@example.com", display_name="Katherine Johnson")
    with chromium_page(permissions=["clipboard-read", "clipboard-write"]) as page:
        page.on("dialog", lambda dialog: dialog.accept())

        page.goto(f"{service}/settings/api-keys")
        page.wait_for_url(re.compile(re.escape(f"{service}/login?next=/settings/api-keys")))
        page.fill("#id_username", user.email)
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{service}/settings/api-keys")
        page.wait_for_selector("#empty:not([hidden])")

        # A validation error from the endpoint is shown as text by its field.
        page.fill("#f-name", "")
        page.click("#create-button")
        field_error = page.wait_for_selector('.field-error[data-for="name"]:not([hidden])')
        assert field_error.text_content() == "name must be 1 to 100 characters."

        # Create: the secret is shown once, with a copy button.
        page.fill("#f-name", "Laptop script")
        page.click("#create-button")
        page.wait_for_selector("#secret-box:not([hidden])")
        secret = page.text_content("#secret-value")
        assert re.fullmatch(r"sk_live_[0-9A-Za-z]{43}", secret)
        page.click("#copy-secret")
        page.wait_for_function("document.getElementById('copy-status').textContent !== ''")
        if page.text_content("#copy-status") == "Copied.":
            assert page.evaluate("navigator.clipboard.readText()") == secret
        row = page.wait_for_selector("#keys tbody tr")
        assert "Laptop script" in row.text_content()
        assert secret not in row.text_content()
        assert f"sk_live_...{secret[-4:]}" in row.text_content()
        assert me_status(service, secret) == 200

        page.click("#hide-secret")
        assert page.is_hidden("#secret-box")

        # Rotate: a new secret, and the old one stops working at once.
        page.click("#keys tbody tr button:has-text('Rotate')")
        page.wait_for_selector("#secret-box:not([hidden])")
        rotated = page.text_content("#secret-value")
        assert rotated.startswith("sk_live_") and rotated != secret
        assert me_status(service, secret) == 401
        assert me_status(service, rotated) == 200

        # Revoke: the row says revoked and the key gets 401.
        page.click("#keys tbody tr button:has-text('Revoke')")
        page.wait_for_selector("#keys tbody .badge.revoked")
        assert me_status(service, rotated) == 401

        # A reload lists the key from the endpoint, still revoked, no secret anywhere.
        page.reload()
        page.wait_for_selector("#keys tbody .badge.revoked")
        assert secret not in page.content() and rotated not in page.content()
        assert page.is_hidden("#error")
    assert user.api_keys.count() == 1


def listed(page) -> list[str]:
    """Key names as the endpoint lists them, asked from the page (Django's ORM may
    not run inside Playwright's event loop)."""
    return page.evaluate(
        "fetch('/v1/api-keys', {credentials: 'same-origin'}).then(r => r.json()).then(b => b.data.map(k => k.name))"
    )


def test_a_create_whose_response_was_lost_is_retried_without_a_second_key(service):
    user = UserFactory(email="dorothy@example.com")
    with signed_in_page(service, user.email, next_path="/settings/api-keys") as page:
        page.wait_for_selector("#empty:not([hidden])")

        sent_keys = []

        def lose_the_first_response(route):
            sent_keys.append(route.request.headers["idempotency-key"])
            route.fetch()  # the server really creates the key...
            route.abort()  # ...but the browser never sees the answer

        page.route(f"{service}/v1/api-keys", lose_the_first_response, times=1)
        page.fill("#f-name", "Flaky network")
        page.click("#create-button")
        page.wait_for_selector("#error:not([hidden])")
        assert "Could not reach the service" in page.text_content("#error")
        assert listed(page) == ["Flaky network"]  # made once, answer lost

        with page.expect_request(f"{service}/v1/api-keys") as retried:
            page.click("#create-button")
        assert retried.value.headers["idempotency-key"] == sent_keys[0]
        page.wait_for_selector("#keys tbody tr")
        assert "Rotate the key to get a new secret" in page.text_content("#error")
        assert page.is_hidden("#secret-box")
        assert listed(page) == ["Flaky network"]
    assert user.api_keys.count() == 1
