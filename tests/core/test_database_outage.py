"""A database outage answers 503 with Retry-After, never a 500 page, and service resumes."""

import pytest
from django.db import connection
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.utils import OperationalError

from tests.support.envelope import assert_error


@pytest.fixture
def outage(monkeypatch):
    """Every use of a connection fails as if the server were unreachable."""

    def refuse(self):
        raise OperationalError("connection refused")

    def start():
        monkeypatch.setattr(BaseDatabaseWrapper, "ensure_connection", refuse)

    def end():
        monkeypatch.undo()

    return start, end


@pytest.fixture
def uncached(settings):
    """Credentials are read from the database on every request (the in-process store
    caches none); a credential served from the shared store's cache needs no database
    (tests/api_v1/test_credential_cache.py)."""
    settings.RATELIMIT = {"STORE": "apps.ratelimit.stores.memory.MemoryStore"}


@pytest.mark.django_db(transaction=True)
def test_v1_answers_503_then_recovers(api, bearer, outage, uncached):
    start, end = outage
    assert api.get("/v1/me", **bearer).status_code == 200
    start()
    response = api.get("/v1/me", **bearer)
    error = assert_error(response, 503, "service_unavailable", type_="api_error")
    assert response["Retry-After"] == "5"
    assert "connection refused" not in error["message"]
    end()
    assert api.get("/v1/me", **bearer).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_real_postgresql_unreachable(api, bearer, uncached):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: points the live connection at a closed port")
    assert api.get("/v1/me", **bearer).status_code == 200
    original = connection.settings_dict["PORT"]
    connection.close()
    connection.settings_dict["PORT"] = "1"  # nothing listens there
    try:
        response = api.get("/v1/me", **bearer)
        assert_error(response, 503, "service_unavailable")
        assert response["Retry-After"] == "5"
    finally:
        connection.close()
        connection.settings_dict["PORT"] = original
    assert api.get("/v1/me", **bearer).status_code == 200


# --- Beyond /v1: the MCP endpoint, the OAuth endpoints and the consent API ---

OAUTH_BODY_KEYS = {"error", "error_description"}


def assert_oauth_unavailable(response):
    """docs/spec.md 7.3: 503 temporarily_unavailable in the RFC 6749 shape, with Retry-After."""
    assert response.status_code == 503, response.content
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"
    assert response["Retry-After"] == "5"
    body = response.json()
    assert set(body) <= OAUTH_BODY_KEYS
    assert body["error"] == "temporarily_unavailable"
    assert b"connection refused" not in response.content
    assert b"Traceback" not in response.content


def assert_envelope_unavailable(response):
    error = assert_error(response, 503, "service_unavailable", type_="api_error")
    assert response["Retry-After"] == "5"
    assert "connection refused" not in error["message"]


@pytest.fixture
def oauth_app(db):
    from tests.support.oauth import make_client

    return make_client()


def _mcp_post(client, token):
    import json

    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    return client.post(
        "/mcp",
        data=json.dumps(message),
        content_type="application/json",
        headers={
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25",
        },
    )


@pytest.mark.django_db(transaction=True)
def test_mcp_answers_503_envelope_then_recovers(user, oauth_app, outage, uncached):
    from django.test import Client

    from tests.support.oauth import MCP, tokens_for

    token = tokens_for(user, oauth_app, resource=MCP)["access_token"]
    client = Client()
    assert _mcp_post(client, token).status_code == 200
    start, end = outage
    start()
    assert_envelope_unavailable(_mcp_post(client, token))
    end()
    assert _mcp_post(client, token).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_token_endpoint_answers_503_then_recovers(user, oauth_app, outage):
    from django.test import Client

    from tests.support.oauth import refresh, tokens_for

    tokens = tokens_for(user, oauth_app)
    start, end = outage
    start()
    assert_oauth_unavailable(refresh(Client(), oauth_app, tokens["refresh_token"]))
    end()
    # The failed attempt changed nothing: the same refresh token still rotates once.
    response = refresh(Client(), oauth_app, tokens["refresh_token"])
    assert response.status_code == 200, response.content
    assert response.json()["refresh_token"].startswith("srt_")


@pytest.mark.django_db(transaction=True)
def test_code_exchange_answers_503_and_the_code_survives(user, oauth_app, outage):
    from django.test import Client

    from tests.support.oauth import exchange, get_code, pkce, signed_in

    verifier, challenge = pkce()
    code = get_code(signed_in(user), oauth_app, challenge)
    start, end = outage
    start()
    assert_oauth_unavailable(exchange(Client(), oauth_app, code, verifier))
    end()
    response = exchange(Client(), oauth_app, code, verifier)
    assert response.status_code == 200, response.content


@pytest.mark.django_db(transaction=True)
def test_revoke_answers_503_then_recovers(user, oauth_app, outage):
    from django.test import Client

    from tests.support.oauth import post_form, tokens_for

    tokens = tokens_for(user, oauth_app)
    start, end = outage
    start()
    assert_oauth_unavailable(post_form(Client(), "/oauth/revoke", {"token": tokens["access_token"]}))
    end()
    assert post_form(Client(), "/oauth/revoke", {"token": tokens["access_token"]}).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_register_answers_503_then_recovers(outage):
    import json

    from django.test import Client

    body = json.dumps(
        {
            "client_name": "Outage Test",
            "redirect_uris": ["https://client.example.com/callback"],
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        }
    )
    start, end = outage
    start()
    assert_oauth_unavailable(Client().post("/oauth/register", body, content_type="application/json"))
    end()
    from apps.oauth.models import Application

    assert not Application.objects.filter(name="Outage Test").exists()
    response = Client().post("/oauth/register", body, content_type="application/json")
    assert response.status_code == 201, response.content


@pytest.mark.django_db(transaction=True)
def test_authorize_answers_503_then_recovers(user, oauth_app, outage):
    from tests.support.oauth import authorize_params, pkce, signed_in

    browser = signed_in(user)
    _verifier, challenge = pkce()
    params = authorize_params(oauth_app, challenge)
    start, end = outage
    start()
    assert_oauth_unavailable(browser.get("/oauth/authorize", params))
    end()
    response = browser.get("/oauth/authorize", params)
    assert response.status_code == 302
    assert "/oauth/consent?transaction=otx_" in response["Location"]


@pytest.mark.django_db(transaction=True)
def test_consent_api_answers_503_envelope_then_recovers(user, oauth_app, outage):
    from tests.support.oauth import decide, pkce, signed_in
    from tests.support.oauth import start as start_flow

    browser = signed_in(user)
    _verifier, challenge = pkce()
    txn_id = start_flow(browser, oauth_app, challenge)
    start, end = outage
    start()
    assert_envelope_unavailable(browser.get(f"/api/oauth/transactions/{txn_id}"))
    assert_envelope_unavailable(decide(browser, txn_id, "allow"))
    assert_envelope_unavailable(browser.delete(f"/api/oauth/connections/{oauth_app.client_id}"))
    end()
    assert browser.get(f"/api/oauth/transactions/{txn_id}").status_code == 200
    response = decide(browser, txn_id, "allow")
    assert response.status_code == 200, response.content
    assert "code=" in response.json()["redirect_to"]


@pytest.mark.django_db(transaction=True)
def test_real_postgresql_unreachable_on_mcp_and_oauth(user, oauth_app):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: points the live connection at a closed port")
    from django.test import Client

    from tests.support.oauth import MCP, refresh, tokens_for

    mcp_token = tokens_for(user, oauth_app, resource=MCP)["access_token"]
    v1_tokens = tokens_for(user, oauth_app)
    original = connection.settings_dict["PORT"]
    connection.close()
    connection.settings_dict["PORT"] = "1"  # nothing listens there
    try:
        assert_envelope_unavailable(_mcp_post(Client(), mcp_token))
        assert_oauth_unavailable(refresh(Client(), oauth_app, v1_tokens["refresh_token"]))
    finally:
        connection.close()
        connection.settings_dict["PORT"] = original
    assert _mcp_post(Client(), mcp_token).status_code == 200
    assert refresh(Client(), oauth_app, v1_tokens["refresh_token"]).status_code == 200
