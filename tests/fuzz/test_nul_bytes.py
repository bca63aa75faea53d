"""A NUL or control byte in any field of any endpoint: the spec's answer, never a 500.

PostgreSQL refuses NUL in text parameters (DataError), so every value that
reaches a query must be checked first. Regressions for what fuzzing found on
PostgreSQL: NUL in authorize's client_id and state, and in a disconnect's client_id.
"""

import json
from urllib.parse import quote

import pytest
from django.test import Client

from apps.oauth.models import Application, ConsentTransaction
from tests.support.oauth import (
    MCP,
    authorize_params,
    exchange,
    get_code,
    make_client,
    pkce,
    post_form,
    query,
    refresh,
    signed_in,
    tokens_for,
)

from .checks import (
    AUTHORIZE_REDIRECT_ERRORS,
    REGISTER_ERRORS,
    TOKEN_ERRORS,
    assert_not_server_error,
    assert_oauth_error,
    assert_registered_envelope,
)

BAD = ["a\x00b", "\x00", "x\x01\x1f", "\u0000dcr_"]


@pytest.fixture
def app(db):
    return make_client()


@pytest.mark.django_db
@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize(
    "field", ["response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "resource"]
)
def test_authorize(user, app, field, bad):
    _verifier, challenge = pkce()
    browser = signed_in(user)
    before = ConsentTransaction.objects.count()
    response = browser.get("/oauth/authorize", authorize_params(app, challenge, **{field: bad}))
    assert_not_server_error(response)
    if response.status_code == 302:
        params = query(response["Location"])
        assert params["error"] in AUTHORIZE_REDIRECT_ERRORS
    else:
        assert response.status_code == 400
    assert ConsentTransaction.objects.count() == before


@pytest.mark.django_db
@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("field", ["grant_type", "code", "code_verifier", "client_id", "redirect_uri", "resource"])
def test_token_code_grant(user, app, field, bad):
    verifier, challenge = pkce()
    code = get_code(signed_in(user), app, challenge)
    response = exchange(Client(), app, code, verifier, **{field: bad})
    assert_oauth_error(response, TOKEN_ERRORS)


@pytest.mark.django_db
@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("field", ["refresh_token", "client_id", "scope", "resource"])
def test_token_refresh_grant(user, app, field, bad):
    tokens = tokens_for(user, app)
    assert_oauth_error(refresh(Client(), app, tokens["refresh_token"], **{field: bad}), TOKEN_ERRORS)


@pytest.mark.django_db
@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("field", ["token", "token_type_hint", "client_id"])
def test_revoke(app, field, bad):
    response = post_form(Client(), "/oauth/revoke", {"token": "sat_x", field: bad})
    assert_not_server_error(response)
    assert response.status_code == 200 or response.json()["error"] == "invalid_request"


@pytest.mark.django_db
@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("field", ["client_name", "redirect_uris", "client_uri", "application_type", "grant_types"])
def test_register(field, bad):
    body = {
        "client_name": "Nul",
        "redirect_uris": ["https://client.example.com/cb"],
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code"],
        "response_types": ["code"],
    }
    body[field] = [bad] if isinstance(body.get(field), list) else bad
    before = Application.objects.count()
    response = Client().post("/oauth/register", json.dumps(body), content_type="application/json")
    assert_not_server_error(response)
    if response.status_code != 201:
        assert_oauth_error(response, REGISTER_ERRORS)
        assert Application.objects.count() == before


@pytest.mark.django_db
@pytest.mark.parametrize("bad", BAD)
def test_consent_and_connections(user, app, bad):
    browser = signed_in(user)
    # The input guard refuses a control character in any id or field (apps/core/inputs.py).
    codes = {"invalid_request"}
    assert_registered_envelope(browser.get(f"/api/oauth/transactions/{quote(bad)}"), codes)
    assert_registered_envelope(browser.delete(f"/api/oauth/connections/{quote(bad)}"), codes)
    _verifier, challenge = pkce()
    from tests.support.oauth import start

    txn_id = start(browser, app, challenge)
    response = browser.post(
        f"/api/oauth/transactions/{txn_id}/decision",
        json.dumps({"decision": bad, "confirm_sensitive": bad}),
        content_type="application/json",
    )
    assert_registered_envelope(response, codes)


@pytest.mark.django_db
@pytest.mark.parametrize("bad", BAD)
def test_mcp(user, app, bad):
    token = tokens_for(user, app, resource=MCP, scope="rates:read")["access_token"]
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    for message in (
        {"jsonrpc": "2.0", "id": bad, "method": bad},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": bad, "arguments": {bad: bad}}},
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": bad}},
    ):
        response = Client().post("/mcp", json.dumps(message), content_type="application/json", headers=headers)
        assert_not_server_error(response)
        assert response.status_code in (200, 400, 404)
    response = Client().post(
        "/mcp", "{}", content_type="application/json", headers={"Authorization": f"Bearer sat_{bad}"}
    )
    assert_registered_envelope(response, {"invalid_token"})
