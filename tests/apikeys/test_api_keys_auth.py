"""/v1/api-keys answers only a signed-in dashboard session, CSRF-protected (docs/spec.md 4.4, 5.1)."""

import pytest
from rest_framework.test import APIClient

from tests.support.envelope import assert_error
from tests.support.factories import PASSWORD

ROUTES = [
    ("get", "/v1/api-keys"),
    ("post", "/v1/api-keys"),
    ("get", "/v1/api-keys/key_abc"),
    ("delete", "/v1/api-keys/key_abc"),
    ("post", "/v1/api-keys/key_abc/rotate"),
]
WWW_AUTHENTICATE = (
    'Bearer error="invalid_token", resource_metadata="http://testserver/.well-known/oauth-protected-resource/v1"'
)


@pytest.mark.django_db
@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_without_a_session_every_route_is_401_asking_to_sign_in(api, method, path):
    response = getattr(api, method)(path, {"name": "x", "scopes": ["rates:read"]}, format="json")
    error = assert_error(response, 401, "invalid_token")
    assert error["type"] == "authentication_error"
    assert "Sign in" in error["message"] and "http://testserver/login" in error["message"]
    assert response["WWW-Authenticate"] == WWW_AUTHENTICATE


@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_an_api_key_never_manages_keys(api, bearer, method, path):
    response = getattr(api, method)(path, {"name": "x", "scopes": ["rates:read"]}, format="json", **bearer)
    assert_error(response, 401, "invalid_token")


@pytest.mark.django_db
def test_an_oauth_looking_token_is_not_a_session(api):
    response = api.get("/v1/api-keys", HTTP_AUTHORIZATION="Bearer sat_" + "a" * 43)
    assert_error(response, 401, "invalid_token")


def test_a_session_with_a_bearer_header_acts_as_the_session_user(dashboard, bearer, user):
    response = dashboard.get("/v1/api-keys", **bearer)
    assert response.status_code == 200
    # The bearer key belongs to the same user and is listed; the header was simply ignored.
    assert len(response.json()["data"]) == 1


def test_an_inactive_user_session_is_refused(dashboard, user):
    user.is_active = False
    user.save()
    assert_error(dashboard.get("/v1/api-keys"), 401, "invalid_token")


@pytest.fixture
def browser(user):
    """A real sign-in through /login with CSRF enforced, as the screen does it."""
    client = APIClient(enforce_csrf_checks=True)
    page = client.get("/login")
    token = page.cookies["csrftoken"].value
    response = client.post("/login", {"username": user.email, "password": PASSWORD, "csrfmiddlewaretoken": token})
    assert response.status_code == 302
    return client


def csrf_of(client):
    return client.cookies["csrftoken"].value


def test_writes_without_the_csrf_header_are_refused_in_the_envelope(browser, user):
    response = browser.post("/v1/api-keys", {"name": "x", "scopes": ["rates:read"]}, format="json")
    error = assert_error(response, 403, "forbidden")
    assert "CSRF" in error["message"]
    assert user.api_keys.count() == 0


@pytest.mark.parametrize(("method", "path"), [("delete", "/v1/api-keys/{id}"), ("post", "/v1/api-keys/{id}/rotate")])
def test_destructive_calls_without_csrf_change_nothing(browser, api_key, method, path):
    key, secret = api_key
    response = getattr(browser, method)(path.format(id=key.id), HTTP_X_CSRFTOKEN="wrong" * 8)
    assert_error(response, 403, "forbidden")
    key.refresh_from_db()
    assert key.status == "live"
    assert key.secret_last4 == secret[-4:]


def test_writes_with_the_csrf_header_succeed(browser):
    response = browser.post(
        "/v1/api-keys", {"name": "x", "scopes": ["rates:read"]}, format="json", HTTP_X_CSRFTOKEN=csrf_of(browser)
    )
    assert response.status_code == 201


def test_reads_need_no_csrf_header(browser):
    assert browser.get("/v1/api-keys").status_code == 200


def test_body_over_16_kb_is_413_and_creates_nothing(dashboard, user):
    body = {"name": "x", "scopes": ["rates:read"], "ip_allowlist": ["10.0.0.1"] * 2000}
    response = dashboard.post("/v1/api-keys", body, format="json")
    error = assert_error(response, 413, "request_too_large")
    assert "16 KB" in error["message"]
    assert user.api_keys.count() == 0


def test_body_just_under_16_kb_is_read(dashboard):
    name_pad = " " * (16 * 1024 - 200)
    body = '{"name": "x", "scopes": ["rates:read"]' + name_pad + "}"
    assert len(body) < 16 * 1024
    response = dashboard.post("/v1/api-keys", body, content_type="application/json")
    assert response.status_code == 201


def test_rotate_body_cap_applies_too(dashboard, api_key):
    key, _ = api_key
    response = dashboard.post(f"/v1/api-keys/{key.id}/rotate", "x" * (16 * 1024 + 1), content_type="application/json")
    assert_error(response, 413, "request_too_large")


def test_responses_carry_service_version_and_request_id(dashboard):
    response = dashboard.get("/v1/api-keys")
    assert response["Service-Version"] == "2026-10-01"
    assert response["Request-Id"].startswith("req_")
