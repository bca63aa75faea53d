"""numbers:read on every numbers endpoint and on svc_list_numbers (DESIGN, Phase 2; docs/spec.md 2.3, 5.9)."""

import pytest

from tests.support.envelope import assert_error
from tests.support.factories import make_api_key
from tests.support.mcp import McpClient, install_fake_tokens
from tests.support.scopes import challenge, every_other_scope

from .factories import make_caller_id, make_number

pytestmark = pytest.mark.django_db

SCOPE = "numbers:read"
EVERY_OTHER_SCOPE = every_other_scope(SCOPE)
V1_CHALLENGE = challenge(SCOPE, "v1")
MCP_CHALLENGE = challenge(SCOPE, "mcp")
TOOL = {"name": "svc_list_numbers", "arguments": {}}


@pytest.fixture
def paths(user):
    number = make_number(user)
    make_caller_id(user, default=True)
    return ["/v1/numbers", f"/v1/numbers/{number.id}", "/v1/caller_ids", "/v1/numbers?limit=1"]


@pytest.mark.parametrize("scopes", [EVERY_OTHER_SCOPE, ["rates:read"], ["calls:read", "contacts:read"]])
@pytest.mark.parametrize("livemode", [True, False])
def test_a_key_without_numbers_read_is_refused_with_the_challenge(user, paths, client, scopes, livemode):
    _key, secret = make_api_key(user, scopes=scopes, livemode=livemode)
    for path in paths:
        response = client.get(path, HTTP_AUTHORIZATION=f"Bearer {secret}")
        error = assert_error(response, 403, "insufficient_scope", type_="permission_error")
        assert SCOPE in error["message"]
        assert response["WWW-Authenticate"] == V1_CHALLENGE


def test_a_key_with_only_numbers_read_is_served(user, paths, client):
    _key, secret = make_api_key(user, scopes=[SCOPE])
    for path in paths:
        assert client.get(path, HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 200, path


def test_an_oauth_token_for_v1_needs_numbers_read_too(user, paths, client, settings):
    tokens = install_fake_tokens(settings)
    resource = "http://testserver/v1"
    without = tokens.issue(user, scopes=frozenset(EVERY_OTHER_SCOPE), resource=resource)
    with_it = tokens.issue(user, scopes=frozenset({SCOPE}), resource=resource)
    for path in paths:
        refused = client.get(path, HTTP_AUTHORIZATION=f"Bearer {without}")
        assert_error(refused, 403, "insufficient_scope")
        assert refused["WWW-Authenticate"] == V1_CHALLENGE
        assert client.get(path, HTTP_AUTHORIZATION=f"Bearer {with_it}").status_code == 200, path


def test_the_scope_is_checked_before_the_id_and_the_parameters(user, client):
    # A caller without the scope learns nothing about which ids exist.
    _key, secret = make_api_key(user, scopes=["rates:read"])
    for path in ("/v1/numbers/num_nosuchnumber0000000000000", "/v1/caller_ids?limit=0", "/v1/numbers?limit=0"):
        assert_error(client.get(path, HTTP_AUTHORIZATION=f"Bearer {secret}"), 403, "insufficient_scope")


def test_the_tool_without_numbers_read_is_a_403_with_the_challenge(user, settings):
    tokens = install_fake_tokens(settings)
    mcp = McpClient(tokens.issue(user, scopes=frozenset(EVERY_OTHER_SCOPE)))
    response = mcp.request("tools/call", TOOL)
    assert_error(response, 403, "insufficient_scope", type_="permission_error")
    assert response["WWW-Authenticate"] == MCP_CHALLENGE


def test_the_tool_with_only_numbers_read_runs(user, settings):
    make_number(user)
    tokens = install_fake_tokens(settings)
    mcp = McpClient(tokens.issue(user, scopes=frozenset({SCOPE})))
    response = mcp.request("tools/call", TOOL)
    assert response.status_code == 200
    result = response.json()["result"]
    assert result.get("isError") is not True
    assert [n["number"] for n in result["structuredContent"]["numbers"]] == ["+442071838750"]


@pytest.mark.parametrize("method", ["get", "head", "options"])
def test_a_keys_refusal_says_how_to_get_a_key_with_the_scope(user, client, method):
    # make apikey's read-only starter key, asking for numbers: the fix is a new key (keys never gain scopes).
    _key, secret = make_api_key(user, scopes=["rates:read", "credits:read", "calls:read", "contacts:read"])
    response = getattr(client, method)("/v1/numbers", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == 403
    if method != "head":
        message = assert_error(response, 403, "insufficient_scope")["message"]
        assert "this API key was not given" in message
        assert f"create a key with {SCOPE} at http://testserver/settings/api-keys" in message


def test_an_apps_refusal_says_to_connect_again(user, client, settings):
    tokens = install_fake_tokens(settings)
    token = tokens.issue(user, scopes=frozenset({"rates:read"}), resource="http://testserver/v1")
    message = assert_error(client.get("/v1/numbers", HTTP_AUTHORIZATION=f"Bearer {token}"), 403, "insufficient_scope")[
        "message"
    ]
    assert "this connection was not given" in message and "Connect the app again" in message
