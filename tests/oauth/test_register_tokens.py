"""DOT's RFC 7592 registration access token must not work as a bearer anywhere."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone
from oauth2_provider.models import set_token_value
from oauth2_provider.settings import oauth2_settings
from oauth2_provider.views.dynamic_client_registration import _issue_registration_token

from apps.core.ids import new_secret
from apps.oauth.models import AccessToken, Application
from tests.support.mcp import McpClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def registered(client):
    response = client.post(
        "/oauth/register",
        data=json.dumps({"client_name": "CLI", "redirect_uris": ["http://127.0.0.1/cb"]}),
        content_type="application/json",
    )
    assert response.status_code == 201
    return Application.objects.get(client_id=response.json()["client_id"])


def test_registration_issues_no_token_at_all(client, registered):
    assert AccessToken.objects.count() == 0


def _dot_registration_token(application, user):
    return _issue_registration_token(application, user)


def _sat_shaped_registration_token(application, user):
    """The worst case: a registration-scope token that even looks like one of ours."""
    raw = new_secret("sat_")
    token = AccessToken(
        application=application,
        user=user,
        expires=timezone.now() + timedelta(days=365),
        scope=oauth2_settings.DCR_REGISTRATION_SCOPE,
    )
    set_token_value(token, raw)
    token.save()
    return raw


@pytest.mark.parametrize("issue", [_dot_registration_token, _sat_shaped_registration_token])
def test_not_a_bearer_at_v1(client, registered, user, issue):
    raw = issue(registered, user)
    response = client.get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_token"
    assert (
        'resource_metadata="http://testserver/.well-known/oauth-protected-resource/v1"' in response["WWW-Authenticate"]
    )


@pytest.mark.parametrize("issue", [_dot_registration_token, _sat_shaped_registration_token])
def test_not_a_bearer_at_mcp(client, registered, user, issue):
    raw = issue(registered, user)
    tools_list = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    response = McpClient(raw).post(tools_list, headers={"Accept": "application/json"})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_token"


@pytest.mark.parametrize("issue", [_dot_registration_token, _sat_shaped_registration_token])
def test_not_accepted_by_a_management_endpoint_either(client, registered, user, issue):
    raw = issue(registered, user)
    for path in (f"/oauth/register/{registered.client_id}", f"/oauth/register/{registered.client_id}/"):
        response = client.get(path, HTTP_AUTHORIZATION=f"Bearer {raw}")
        assert response.status_code == 404
