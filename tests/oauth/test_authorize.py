"""GET /oauth/authorize: docs/spec.md 4.3 and the authorize rows of docs/spec.md 7.3."""

from unittest import mock

import pytest
from django.test import Client

from apps.oauth.models import ConsentTransaction
from apps.oauth.views.authorize import BINDING_COOKIE
from tests.support.oauth import BASE, MCP, REDIRECT, V1, authorize_params, make_client, pkce, query

pytestmark = pytest.mark.django_db


def test_valid_request_creates_transaction_and_sends_to_consent(browser, app, user):
    _, challenge = pkce()
    response = browser.get("/oauth/authorize", authorize_params(app, challenge, scope="rates:read calls:place"))
    assert response.status_code == 302
    location = response["Location"]
    assert location.startswith(f"{BASE}/oauth/consent?transaction=otx_")
    txn = ConsentTransaction.objects.get(pk=query(location)["transaction"])
    assert len(txn.pk) == 4 + 24
    assert txn.user == user and txn.application == app
    assert txn.scopes == ["rates:read", "calls:place"]
    assert txn.resource == V1 and txn.state == "xyz-state" and txn.redirect_uri == REDIRECT
    assert (txn.expires_at - txn.created).total_seconds() == 600
    cookie = response.cookies[BINDING_COOKIE]
    assert cookie["httponly"] and cookie.value
    assert txn.binding_digest != cookie.value and len(txn.binding_digest) == 64


def test_mcp_resource_is_accepted(browser, app):
    _, challenge = pkce()
    response = browser.get("/oauth/authorize", authorize_params(app, challenge, resource=MCP))
    assert response.status_code == 302 and "/oauth/consent?" in response["Location"]


def test_not_signed_in_goes_to_sign_in_and_back(app):
    _, challenge = pkce()
    response = Client().get("/oauth/authorize", authorize_params(app, challenge))
    assert response.status_code == 302
    assert response["Location"].startswith("/login?next=/oauth/authorize%3F")
    assert ConsentTransaction.objects.count() == 0


@pytest.mark.parametrize("client_id", [None, "", "dcr_unknown", "x" * 300])
def test_unknown_client_renders_error_page_never_redirects(browser, client_id):
    _, challenge = pkce()
    params = authorize_params(make_client(), challenge, client_id=client_id)
    response = browser.get("/oauth/authorize", params)
    assert response.status_code == 400
    assert "Location" not in response
    assert b"invalid_client" in response.content
    assert ConsentTransaction.objects.count() == 0


def test_disabled_client_renders_error_page(browser):
    from django.utils import timezone

    app = make_client(disabled_at=timezone.now())
    _, challenge = pkce()
    response = browser.get("/oauth/authorize", authorize_params(app, challenge))
    assert response.status_code == 400 and b"invalid_client" in response.content


@pytest.mark.parametrize(
    "redirect_uri",
    [
        None,
        "https://attacker.example/callback",
        f"{REDIRECT}/extra",
        f"{REDIRECT}?x=1",
        f"{REDIRECT}#frag",
        "http://127.0.0.1/other",
        "http://localhost/callback",  # registered host is 127.0.0.1, not localhost
    ],
)
def test_unregistered_redirect_uri_renders_error_page(browser, app, redirect_uri):
    _, challenge = pkce()
    response = browser.get("/oauth/authorize", authorize_params(app, challenge, redirect_uri=redirect_uri))
    assert response.status_code == 400
    assert "Location" not in response
    assert b"invalid_request" in response.content


def test_repeated_redirect_uri_renders_error_page(browser, app):
    _, challenge = pkce()
    params = authorize_params(app, challenge)
    params["redirect_uri"] = [REDIRECT, REDIRECT]
    response = browser.get("/oauth/authorize", params)
    assert response.status_code == 400 and "Location" not in response


@pytest.mark.parametrize("port", ["", ":8080", ":53211"])
def test_loopback_redirect_matches_any_port(browser, app, port):
    _, challenge = pkce()
    uri = f"http://127.0.0.1{port}/callback"
    response = browser.get("/oauth/authorize", authorize_params(app, challenge, redirect_uri=uri))
    assert response.status_code == 302 and "/oauth/consent?" in response["Location"]


def _error_redirect(response, error):
    assert response.status_code == 302
    location = response["Location"]
    assert location.startswith(REDIRECT + "?")
    params = query(location)
    assert params["error"] == error
    assert params["iss"] == BASE
    assert params["error_description"]
    assert ConsentTransaction.objects.count() == 0
    return params


@pytest.mark.parametrize(
    "overrides,error",
    [
        ({"response_type": "token"}, "unsupported_response_type"),
        ({"response_type": None}, "unsupported_response_type"),
        ({"code_challenge": None}, "invalid_request"),
        ({"code_challenge": "short"}, "invalid_request"),
        ({"code_challenge_method": None}, "invalid_request"),
        ({"code_challenge_method": "plain"}, "invalid_request"),
        ({"resource": None}, "invalid_target"),
        ({"resource": "http://testserver/v2"}, "invalid_target"),
        ({"resource": "http://testserver/v1/"}, "invalid_target"),
        ({"resource": "https://other.example/v1"}, "invalid_target"),
        ({"scope": None}, "invalid_scope"),
        ({"scope": ""}, "invalid_scope"),
        ({"scope": "rates:read admin"}, "invalid_scope"),
    ],
)
def test_errors_redirect_with_error_state_and_iss(browser, app, overrides, error):
    _, challenge = pkce()
    response = browser.get("/oauth/authorize", authorize_params(app, challenge, **overrides))
    params = _error_redirect(response, error)
    assert params["state"] == "xyz-state"


def test_missing_state_redirects_invalid_request_without_state(browser, app):
    _, challenge = pkce()
    response = browser.get("/oauth/authorize", authorize_params(app, challenge, state=None))
    params = _error_redirect(response, "invalid_request")
    assert "state" not in params


def test_repeated_resource_is_invalid_target(browser, app):
    _, challenge = pkce()
    params = authorize_params(app, challenge)
    params["resource"] = [V1, MCP]
    _error_redirect(browser.get("/oauth/authorize", params), "invalid_target")
    params["resource"] = [V1, V1]
    _error_redirect(browser.get("/oauth/authorize", params), "invalid_target")


def test_plain_pkce_is_refused_before_sign_in_and_consent(app):
    """DOT refuses `plain` only at the exchange; here no transaction is ever created."""
    _, challenge = pkce()
    response = Client().get("/oauth/authorize", authorize_params(app, challenge, code_challenge_method="plain"))
    _error_redirect(response, "invalid_request")


def test_errors_are_reported_before_sign_in(app):
    _, challenge = pkce()
    response = Client().get("/oauth/authorize", authorize_params(app, challenge, scope="nope"))
    _error_redirect(response, "invalid_scope")


def test_storage_failure_redirects_server_error(browser, app):
    _, challenge = pkce()
    with mock.patch("apps.oauth.views.authorize.transaction_create", side_effect=RuntimeError("db down")):
        response = browser.get("/oauth/authorize", authorize_params(app, challenge))
    _error_redirect(response, "server_error")


def test_post_is_not_allowed(browser, app):
    response = browser.post("/oauth/authorize")
    assert response.status_code == 405


def test_metadata_document_client_is_resolved_through_one_call_site(browser):
    url = "https://assistant.example/oauth/client.json"
    app = make_client(client_id=url, registration_source="cimd", redirect_uris=REDIRECT)
    _, challenge = pkce()
    with mock.patch("apps.oauth.client_metadata.client_get_by_metadata_url", return_value=app) as resolve:
        response = browser.get("/oauth/authorize", authorize_params(app, challenge))
    resolve.assert_called_once()
    assert resolve.call_args.args[0] == url
    assert response.status_code == 302 and "/oauth/consent?" in response["Location"]


def test_unfetchable_metadata_document_is_invalid_client(browser):
    url = "https://assistant.example/oauth/client.json"
    _, challenge = pkce()
    with mock.patch("apps.oauth.client_metadata.client_get_by_metadata_url", return_value=None):
        response = browser.get("/oauth/authorize", authorize_params(make_client(), challenge, client_id=url))
    assert response.status_code == 400 and b"invalid_client" in response.content


def test_repeated_client_id_renders_error_page(browser, app):
    _, challenge = pkce()
    params = authorize_params(app, challenge)
    params["client_id"] = [app.client_id, app.client_id]
    response = browser.get("/oauth/authorize", params)
    assert response.status_code == 400 and b"invalid_client" in response.content


@pytest.mark.parametrize("name", ["state", "code_challenge", "code_challenge_method", "scope"])
def test_repeated_parameter_redirects_invalid_request(browser, app, name):
    _, challenge = pkce()
    params = authorize_params(app, challenge)
    params[name] = [params[name], params[name]]
    response = browser.get("/oauth/authorize", params)
    assert response.status_code == 302
    assert query(response["Location"])["error"] == "invalid_request"
    assert ConsentTransaction.objects.count() == 0
