"""The HTTP half of /mcp: everything answered before the JSON-RPC layer (docs/spec.md 4.7, 5.8, 7.2, 7.4)."""

import json

import pytest
from django.test import override_settings

from tests.support.envelope import assert_error
from tests.support.factories import make_api_key
from tests.support.mcp import McpClient

pytestmark = pytest.mark.django_db

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
RESOURCE_METADATA = 'resource_metadata="http://testserver/.well-known/oauth-protected-resource/mcp"'
WWW_AUTHENTICATE = f'Bearer error="invalid_token", {RESOURCE_METADATA}'


def assert_invalid_token(response):
    error = assert_error(response, 401, "invalid_token", type_="authentication_error")
    assert response["WWW-Authenticate"] == WWW_AUTHENTICATE
    return error


def test_a_valid_token_is_served(mcp):
    response = mcp.post(PING)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert response["Request-Id"].startswith("req_")
    assert response["Cache-Control"] == "no-store"
    # Stateless: no session is ever minted.
    assert "Mcp-Session-Id" not in response


def test_a_session_id_header_is_accepted_and_ignored(mcp):
    response = mcp.post(PING, headers={"Mcp-Session-Id": "whatever-the-client-had"})
    assert response.status_code == 200
    assert "Mcp-Session-Id" not in response


@pytest.mark.parametrize("method", ["get", "delete", "put", "patch", "head"])
def test_other_methods_are_405_with_allow(method, token):
    client = McpClient(token).client
    response = getattr(client, method)("/mcp", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    if method != "head":
        assert_error(response, 405, "method_not_allowed")


def test_no_trailing_slash_redirect(mcp):
    response = mcp.post_raw(json.dumps(PING), path="/mcp/", **mcp.headers())
    assert response.status_code == 404
    assert "Location" not in response
    assert_error(response, 404, "not_found")


def test_missing_token_is_401_pointing_at_mcp_metadata(tokens):
    response = McpClient().post(PING)
    error = assert_invalid_token(response)
    assert "Authorization: Bearer" in error["message"]
    assert tokens.lookups == []


@pytest.mark.parametrize("header", ["Basic abc", "Bearer", "Bearer ", "Bearer a b", "Token abc"])
def test_malformed_authorization_is_401(header, tokens):
    client = McpClient()
    response = client.post_raw(json.dumps(PING), Authorization=header)
    assert_invalid_token(response)
    assert tokens.lookups == []


def test_unknown_token_is_401(tokens):
    assert_invalid_token(McpClient("mcptest_nope").post(PING))
    assert_invalid_token(McpClient("sat_" + "a" * 43).post(PING))


def test_token_in_query_is_refused_before_lookup(tokens, token):
    client = McpClient(token)
    response = client.post_raw(json.dumps(PING), path=f"/mcp?access_token={token}", **client.headers())
    assert_error(response, 400, "token_in_query", param="access_token")
    assert tokens.lookups == []


@pytest.mark.parametrize("name", ["access%5Ftoken", "%61ccess_token", "other=1&access_token"])
def test_token_in_query_is_refused_however_the_name_is_escaped(tokens, token, name):
    client = McpClient(token)
    response = client.post_raw(json.dumps(PING), path=f"/mcp?{name}={token}", **client.headers())
    assert_error(response, 400, "token_in_query", param="access_token")
    assert tokens.lookups == []


def test_token_in_query_is_refused_even_without_a_header(tokens, token):
    client = McpClient()
    response = client.post_raw(json.dumps(PING), path=f"/mcp?access_token={token}", **client.headers())
    assert_error(response, 400, "token_in_query", param="access_token")
    assert tokens.lookups == []


@pytest.mark.parametrize("livemode", [True, False])
def test_api_keys_are_refused_even_when_valid(livemode, tokens, user):
    key, secret = make_api_key(user, livemode=livemode)
    error = assert_invalid_token(McpClient(secret).post(PING))
    assert "OAuth" in error["message"]
    key.refresh_from_db()
    assert key.last_used_at is None  # never looked up, so nothing moved


def test_api_key_with_an_allowlist_is_still_401_not_403(tokens, user):
    _key, secret = make_api_key(user, ip_allowlist=["203.0.113.0/24"])
    assert_invalid_token(McpClient(secret).post(PING))


def test_a_credential_kind_configured_for_v1_only_is_refused_before_any_lookup(tokens, user, settings):
    secret = tokens.issue(user)
    settings.BEARER_RESOLVERS = {
        **settings.BEARER_RESOLVERS,
        "mcptest_": {"resolve": "tests.support.mcp.resolve", "resources": ["v1"]},
    }
    assert_invalid_token(McpClient(secret).post(PING))
    assert tokens.lookups == []


def test_token_bound_to_v1_is_refused(tokens, user):
    secret = tokens.issue(user, resource="http://testserver/v1")
    error = assert_invalid_token(McpClient(secret).post(PING))
    assert "MCP" in error["message"]


def test_token_bound_to_nothing_is_refused(tokens, user):
    assert_invalid_token(McpClient(tokens.issue(user, resource=None)).post(PING))


def test_test_mode_credential_is_refused(tokens, user):
    assert_invalid_token(McpClient(tokens.issue(user, livemode=False)).post(PING))


def test_refresh_token_is_refused(tokens):
    assert_invalid_token(McpClient("srt_" + "a" * 43).post(PING))


def test_every_401_happens_before_the_body_is_read(tokens):
    # Even a body that is not JSON gets the 401 first: the client learns to authenticate.
    response = McpClient().post_raw(b"{not json")
    assert_invalid_token(response)


def test_foreign_origin_is_403(mcp):
    response = mcp.post(PING, headers={"Origin": "https://evil.example"})
    assert_error(response, 403, "forbidden", type_="permission_error")


def test_own_origin_is_allowed(mcp):
    assert mcp.post(PING, headers={"Origin": "http://testserver"}).status_code == 200


@override_settings(MCP_ALLOWED_ORIGINS=["https://inspector.example"])
def test_configured_origin_is_allowed(mcp):
    assert mcp.post(PING, headers={"Origin": "https://inspector.example"}).status_code == 200
    assert mcp.post(PING, headers={"Origin": "http://testserver"}).status_code == 403


def test_foreign_origin_is_refused_before_any_lookup(tokens, token):
    client = McpClient(token)
    response = client.post(PING, headers={"Origin": "https://evil.example"})
    assert response.status_code == 403
    assert tokens.lookups == []


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "application/jsonx"])
def test_body_must_be_json(content_type, mcp):
    response = mcp.post_raw(json.dumps(PING), content_type=content_type, **mcp.headers())
    assert_error(response, 415, "unsupported_media_type")


def test_json_with_charset_is_fine(mcp):
    response = mcp.post_raw(json.dumps(PING), content_type="application/json; charset=utf-8", **mcp.headers())
    assert response.status_code == 200


@pytest.mark.parametrize("accept", ["text/event-stream", "text/html"])
def test_accept_must_allow_json(accept, mcp):
    headers = mcp.headers()
    headers["Accept"] = accept
    response = mcp.post_raw(json.dumps(PING), **headers)
    assert_error(response, 406, "not_acceptable")


@pytest.mark.parametrize("accept", [None, "*/*", "application/*", "application/json"])
def test_accept_variants_that_allow_json(accept, mcp):
    headers = mcp.headers()
    headers.pop("Accept")
    if accept:
        headers["Accept"] = accept
    assert mcp.post_raw(json.dumps(PING), **headers).status_code == 200


def test_body_over_the_cap_is_413(mcp):
    big = json.dumps({**PING, "params": {"_meta": {"pad": "x" * (256 * 1024)}}})
    response = mcp.post_raw(big, **mcp.headers())
    assert_error(response, 413, "request_too_large")


def test_cors_preflight_is_answered(mcp, settings):
    # From an origin the Origin check admits; any other is refused (tests/core/test_cors.py).
    settings.MCP_ALLOWED_ORIGINS = ["https://app.example"]
    response = mcp.client.options(
        "/mcp",
        headers={
            "Origin": "https://app.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version",
        },
    )
    assert response.status_code == 200
    assert "mcp-protocol-version" in response["Access-Control-Allow-Headers"].lower()


def test_an_unexpected_server_fault_is_the_internal_error_envelope(mcp, monkeypatch):
    from apps.mcp_bridge import protocol

    def broken(**kwargs):
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(protocol, "handle", broken)
    mcp.client.raise_request_exception = False
    response = mcp.post(PING)
    assert_error(response, 500, "internal_error", type_="api_error")
    assert b"secret internal detail" not in response.content
