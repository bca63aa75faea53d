"""credits:read on every billing endpoint and on svc_get_balance (DESIGN, Phase 2; docs/spec.md 2.3, 5.9)."""

import pytest

from tests.billing.factories import append
from tests.support.envelope import assert_error
from tests.support.factories import make_api_key
from tests.support.mcp import McpClient, install_fake_tokens
from tests.support.scopes import challenge, every_other_scope

pytestmark = pytest.mark.django_db

SCOPE = "credits:read"
EVERY_OTHER_SCOPE = every_other_scope(SCOPE)
V1_CHALLENGE = challenge(SCOPE, "v1")
MCP_CHALLENGE = challenge(SCOPE, "mcp")
BALANCE_TOOL = {"name": "svc_get_balance", "arguments": {}}


@pytest.fixture
def paths(user):
    row = append(user)
    return ["/v1/balance", "/v1/balance_transactions", f"/v1/balance_transactions/{row.id}"]


@pytest.mark.parametrize("scopes", [EVERY_OTHER_SCOPE, ["rates:read"], ["calls:read", "transcripts:read"]])
@pytest.mark.parametrize("livemode", [True, False])
def test_a_key_without_credits_read_is_refused_with_the_challenge(user, paths, client, scopes, livemode):
    _key, secret = make_api_key(user, scopes=scopes, livemode=livemode)
    for path in paths:
        response = client.get(path, HTTP_AUTHORIZATION=f"Bearer {secret}")
        error = assert_error(response, 403, "insufficient_scope", type_="permission_error")
        assert SCOPE in error["message"]
        assert response["WWW-Authenticate"] == V1_CHALLENGE


def test_a_key_with_only_credits_read_is_served(user, paths, client):
    _key, secret = make_api_key(user, scopes=[SCOPE])
    for path in paths:
        assert client.get(path, HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 200, path


def test_an_oauth_token_for_v1_needs_credits_read_too(user, paths, client, settings):
    tokens = install_fake_tokens(settings)
    resource = "http://testserver/v1"
    without = tokens.issue(user, scopes=frozenset(EVERY_OTHER_SCOPE), resource=resource)
    with_it = tokens.issue(user, scopes=frozenset({SCOPE}), resource=resource)
    for path in paths:
        refused = client.get(path, HTTP_AUTHORIZATION=f"Bearer {without}")
        assert_error(refused, 403, "insufficient_scope")
        assert refused["WWW-Authenticate"] == V1_CHALLENGE
        assert client.get(path, HTTP_AUTHORIZATION=f"Bearer {with_it}").status_code == 200, path


def test_the_scope_is_checked_before_the_id(user, client):
    # A caller without the scope learns nothing about which ids exist.
    _key, secret = make_api_key(user, scopes=["rates:read"])
    response = client.get(
        "/v1/balance_transactions/txn_nosuchrow0000000000000000", HTTP_AUTHORIZATION=f"Bearer {secret}"
    )
    assert_error(response, 403, "insufficient_scope")


def test_the_tool_without_credits_read_is_a_403_with_the_challenge(user, settings):
    tokens = install_fake_tokens(settings)
    mcp = McpClient(tokens.issue(user, scopes=frozenset(EVERY_OTHER_SCOPE)))
    response = mcp.request("tools/call", BALANCE_TOOL)
    assert_error(response, 403, "insufficient_scope", type_="permission_error")
    assert response["WWW-Authenticate"] == MCP_CHALLENGE


def test_the_tool_with_only_credits_read_runs(user, settings):
    tokens = install_fake_tokens(settings)
    mcp = McpClient(tokens.issue(user, scopes=frozenset({SCOPE})))
    response = mcp.request("tools/call", BALANCE_TOOL)
    assert response.status_code == 200
    body = response.json()["result"]
    assert body.get("isError") is not True
    assert body["structuredContent"]["amount"] == 0
