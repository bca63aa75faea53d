"""An account's data is never kept by a cache: every authenticated /v1 and /mcp response,
success or error, carries ``Cache-Control: no-store`` (Stripe sends the same).

docs/spec.md 4 requires it on errors; a shared cache that kept a 200 of ``GET /v1/me``
could hand one account's email to another caller.
"""

import json

import pytest
from django.test import Client

from tests.support.oauth import MCP, make_client, tokens_for

pytestmark = pytest.mark.django_db


def directives(response) -> set[str]:
    return {d.strip() for d in response.get("Cache-Control", "").split(",") if d.strip()}


def test_v1_me_with_an_api_key(api, bearer):
    response = api.get("/v1/me", **bearer)
    assert response.status_code == 200
    assert "no-store" in directives(response)


def test_v1_me_through_the_drf_path(api, bearer):
    # A query string or an Accept list sends /v1/me through DRF instead of the fast path.
    for extra in ({"QUERY_STRING": "x=1"}, {"HTTP_ACCEPT": "application/json, */*;q=0.1"}):
        response = api.get("/v1/me", **bearer, **extra)
        assert response.status_code == 200
        assert "no-store" in directives(response)


def test_v1_me_head_and_options(api, bearer):
    assert "no-store" in directives(api.head("/v1/me", **bearer))
    assert "no-store" in directives(api.options("/v1/me", **bearer))


def test_v1_me_with_an_oauth_token(user):
    token = tokens_for(user, make_client())["access_token"]
    response = Client().get("/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    assert "no-store" in directives(response)


def test_api_keys_with_a_session(api, user):
    api.force_login(user)
    listed = api.get("/v1/api-keys")
    assert listed.status_code == 200
    assert "no-store" in directives(listed)
    created = api.post("/v1/api-keys", {"name": "k", "scopes": ["rates:read"]}, format="json")
    assert created.status_code == 201
    assert "no-store" in directives(created)
    shown = api.get(f"/v1/api-keys/{created.json()['id']}")
    assert "no-store" in directives(shown)


def test_mcp_results(user):
    token = tokens_for(user, make_client(), resource=MCP)["access_token"]
    response = Client().post(
        "/mcp",
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "svc_whoami"}}),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
    )
    assert response.status_code == 200
    assert "no-store" in directives(response)


def test_the_public_openapi_document_may_be_cached(api):
    # No credential, nobody's data: this rule leaves the public document alone.
    response = api.get("/v1/openapi.json")
    assert response.status_code == 200
    assert "no-store" not in directives(response)
