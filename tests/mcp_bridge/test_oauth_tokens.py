"""/mcp with real OAuth access tokens from the OAuth core (authorize, consent, code exchange)."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from apps.oauth.models import AccessToken
from tests.support.envelope import assert_error
from tests.support.mcp import McpClient
from tests.support.oauth import MCP, V1, make_client, post_form, refresh, signed_in, tokens_for

pytestmark = pytest.mark.django_db

WHOAMI = {"name": "svc_whoami", "arguments": {}}
WWW_AUTHENTICATE = (
    'Bearer error="invalid_token", resource_metadata="http://testserver/.well-known/oauth-protected-resource/mcp"'
)


def assert_invalid_token(response):
    error = assert_error(response, 401, "invalid_token")
    assert response["WWW-Authenticate"] == WWW_AUTHENTICATE
    return error


@pytest.fixture
def app():
    return make_client()


@pytest.fixture
def mcp_tokens(user, app):
    return tokens_for(user, app, resource=MCP, scope="rates:read")


def test_an_mcp_bound_access_token_calls_whoami(mcp_tokens):
    response = McpClient(mcp_tokens["access_token"]).request("tools/call", WHOAMI)
    assert response.status_code == 200, response.content
    assert response.json()["result"]["structuredContent"] == {
        "email": "ada@example.com",
        "display_name": "Ada Lovelace",
        "spoken": "You are connected as Ada Lovelace (ada@example.com).",
    }


def test_a_v1_bound_access_token_is_refused(user, app):
    v1_tokens = tokens_for(user, app, resource=V1)
    assert Client().get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {v1_tokens['access_token']}").status_code == 200
    assert_invalid_token(McpClient(v1_tokens["access_token"]).request("ping"))


def test_a_refresh_token_is_refused(mcp_tokens):
    assert_invalid_token(McpClient(mcp_tokens["refresh_token"]).request("ping"))


def test_an_expired_access_token_is_refused(mcp_tokens):
    AccessToken.objects.update(expires=timezone.now() - timedelta(seconds=1))
    assert_invalid_token(McpClient(mcp_tokens["access_token"]).request("ping"))


def test_a_revoked_access_token_is_refused(mcp_tokens):
    response = post_form(Client(), "/oauth/revoke", {"token": mcp_tokens["access_token"]})
    assert response.status_code == 200
    assert_invalid_token(McpClient(mcp_tokens["access_token"]).request("ping"))


def test_a_disconnected_app_is_refused_with_a_reconnect_message(user, app, mcp_tokens):
    browser = signed_in(user)
    assert browser.delete(f"/api/oauth/connections/{app.client_id}").status_code in (200, 204)
    error = assert_invalid_token(McpClient(mcp_tokens["access_token"]).request("ping"))
    assert "reconnect" in error["message"].lower()


def test_a_disabled_client_is_refused(app, mcp_tokens):
    app.disabled_at = timezone.now()
    app.save(update_fields=["disabled_at"])
    assert_invalid_token(McpClient(mcp_tokens["access_token"]).request("ping"))


def test_a_refreshed_access_token_works(app, mcp_tokens):
    response = refresh(Client(), app, mcp_tokens["refresh_token"])
    assert response.status_code == 200, response.content
    fresh = response.json()["access_token"]
    assert McpClient(fresh).request("tools/call", WHOAMI).json()["result"]["isError"] is False


def test_a_deactivated_user_is_refused(user, mcp_tokens):
    user.is_active = False
    user.save(update_fields=["is_active"])
    assert_invalid_token(McpClient(mcp_tokens["access_token"]).request("ping"))
