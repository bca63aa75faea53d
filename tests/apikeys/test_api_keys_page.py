"""The API keys screen at /settings/api-keys, and the flow it drives end to end."""

import json
import re

import pytest
from django.test import Client

from apps.credentials.scopes import ALL_SCOPES
from tests.support.factories import PASSWORD


def test_signed_out_visitors_are_sent_to_sign_in(client, db):
    response = client.get("/settings/api-keys")
    assert response.status_code == 302
    assert response["Location"] == "/login?next=/settings/api-keys"


def test_page_renders_for_a_signed_in_user(client, user):
    client.force_login(user)
    response = client.get("/settings/api-keys")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>API keys</h1>" in html
    assert user.email in html
    for scope in ALL_SCOPES:
        assert f'value="{scope}"' in html
    # The screen talks to the management endpoints with the CSRF header and a
    # fresh Idempotency-Key per write, and has a copy button for the secret.
    assert '"/v1/api-keys"' in html
    assert "X-CSRFToken" in html
    assert "Idempotency-Key" in html
    assert 'id="copy-secret"' in html
    assert "navigator.clipboard" in html
    # Secrets and user text are written with textContent, never as HTML.
    assert "innerHTML" not in html
    assert response.cookies["csrftoken"].value


def test_the_page_lists_nothing_server_side(client, user, api_key):
    # Keys come from the endpoint, so the page never embeds key material.
    key, secret = api_key
    client.force_login(user)
    html = client.get("/settings/api-keys").content.decode()
    assert secret not in html
    assert key.secret_last4 not in html or key.id not in html


@pytest.fixture
def screen(user):
    """A browser that signs in at /login and opens the screen, CSRF enforced as in real life."""
    browser = Client(enforce_csrf_checks=True)
    login = browser.get("/login")
    token = login.cookies["csrftoken"].value
    assert browser.post("/login", {"username": user.email, "password": PASSWORD, "csrfmiddlewaretoken": token})
    page = browser.get("/settings/api-keys")
    assert page.status_code == 200
    browser.csrf = re.search(r'<meta name="csrf-token" content="([^"]+)"', page.content.decode()).group(1)
    return browser


def screen_call(browser, method, path, body=None, key="5f0c9a4e-8d1b-4c2e-9a57-0d6f2b3c4e11"):
    """The request the page's JavaScript sends (see call() in the template)."""
    kwargs = {"HTTP_X_CSRFTOKEN": browser.csrf, "HTTP_ACCEPT": "application/json"}
    if method != "get":
        kwargs["HTTP_IDEMPOTENCY_KEY"] = key
    if method == "get":
        return browser.get(path, **kwargs)
    # fetch() sends no Content-Type and an empty body when there is no body.
    data = json.dumps(body) if body is not None else ""
    content_type = "application/json" if body is not None else ""
    return browser.generic(method.upper(), path, data, content_type, **kwargs)


def test_a_key_created_on_the_screen_works_at_v1_me_and_stops_when_revoked(screen, api, user):
    created = screen_call(screen, "post", "/v1/api-keys", {"name": "From the screen", "scopes": ["rates:read"]})
    assert created.status_code == 201, created.content
    secret = created.json()["secret"]

    me = api.get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert me.status_code == 200
    assert me.json()["id"] == user.id
    assert me.json()["livemode"] is True

    listed = screen_call(screen, "get", "/v1/api-keys").json()["data"]
    assert [k["name"] for k in listed] == ["From the screen"]

    key_id = created.json()["id"]
    revoked = screen_call(screen, "delete", f"/v1/api-keys/{key_id}", key="1b7e2d4c-0f3a-4e59-8c6b-7a9d2e1f3b40")
    assert revoked.status_code == 200
    assert revoked.json()["status"] == "revoked"

    after = api.get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert after.status_code == 401
    assert after.json()["error"]["code"] == "invalid_token"


def test_a_key_rotated_on_the_screen_works_and_the_old_one_does_not(screen, api):
    created = screen_call(screen, "post", "/v1/api-keys", {"name": "k", "scopes": ["rates:read"], "livemode": False})
    old = created.json()["secret"]
    rotated = screen_call(
        screen, "post", f"/v1/api-keys/{created.json()['id']}/rotate", key="9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f"
    )
    new = rotated.json()["secret"]
    assert api.get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {old}").status_code == 401
    me = api.get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {new}")
    assert me.status_code == 200
    assert me.json()["livemode"] is False


def test_a_create_retried_with_its_key_makes_one_key(screen, user):
    # The page resends a create whose response was lost with the same key.
    body = {"name": "k", "scopes": ["rates:read"]}
    first = screen_call(screen, "post", "/v1/api-keys", body)
    second = screen_call(screen, "post", "/v1/api-keys", body)
    assert first.status_code == second.status_code == 201
    assert second["Idempotent-Replayed"] == "true"
    assert second.json()["secret"] is None
    assert user.api_keys.count() == 1


def test_errors_reach_the_screen_as_readable_messages(screen):
    response = screen_call(screen, "post", "/v1/api-keys", {"name": "", "scopes": ["rates:read"]})
    error = response.json()["error"]
    # The page shows error.message next to the field named by error.param.
    assert error["param"] == "name"
    assert error["message"] == "name must be 1 to 100 characters."


def test_after_sign_out_the_screen_gets_401_asking_to_sign_in(screen):
    screen.post("/logout", HTTP_X_CSRFTOKEN=screen.csrf)
    response = screen_call(screen, "get", "/v1/api-keys")
    assert response.status_code == 401
    assert "Sign in" in response.json()["error"]["message"]
