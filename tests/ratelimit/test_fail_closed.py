"""Store unreachable: public paths fail closed with 503 and Retry-After: 5, never a 500 (docs/spec.md 8)."""

import pytest

from apps.ratelimit import conf
from apps.ratelimit.stores.base import Store, StoreUnavailable
from tests.support.oauth import FORM

pytestmark = pytest.mark.django_db


class DownStore(Store):
    def evaluate(self, checks, *, now_ms=None):
        raise StoreUnavailable("connection refused")

    def clear(self):
        raise StoreUnavailable("connection refused")


@pytest.fixture
def down(monkeypatch):
    store = DownStore()
    monkeypatch.setattr(conf, "get_store", lambda: store)
    return store


def assert_envelope_503(response):
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "rate_limiter_unavailable"
    assert error["type"] == "api_error"
    assert response["Retry-After"] == "5"
    assert response["Cache-Control"] == "no-store"
    assert "RateLimit" not in response


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/.well-known/oauth-authorization-server"),
        ("get", "/.well-known/oauth-protected-resource/mcp"),
        ("get", "/v1/openapi.json"),
    ],
)
def test_metadata_fails_closed(api, down, method, path):
    assert_envelope_503(getattr(api, method)(path))


def test_v1_reads_fail_closed(api, bearer, down):
    response = api.get("/v1/me", **bearer)
    assert_envelope_503(response)
    assert response["Service-Version"] == "2026-10-01"


def test_a_failed_bearer_check_fails_closed(api, down):
    assert_envelope_503(api.get("/v1/me", HTTP_AUTHORIZATION="Bearer sk_live_nope"))


def test_key_management_fails_closed(api, user, down):
    api.force_login(user)
    assert_envelope_503(api.get("/v1/api-keys"))


def test_mcp_fails_closed(api, down):
    assert_envelope_503(api.post("/mcp", {}, format="json", HTTP_AUTHORIZATION="Bearer sat_unknown"))


@pytest.mark.parametrize("path", ["/oauth/token", "/oauth/revoke"])
def test_oauth_fails_closed_with_its_own_shape(client, down, path):
    response = client.post(path, "token=x&grant_type=refresh_token", content_type=FORM)
    assert response.status_code == 503
    assert response.json()["error"] == "temporarily_unavailable"
    assert response["Retry-After"] == "5"


def test_authorize_and_register_fail_closed(client, down):
    assert client.get("/oauth/authorize").status_code == 503
    response = client.post("/oauth/register", {}, content_type="application/json")
    assert response.status_code == 503
    assert response.json()["error"] == "temporarily_unavailable"
    assert response["Retry-After"] == "5"


def test_pages_outside_the_limited_paths_still_work(client, down):
    assert client.get("/login").status_code == 200


def test_disabled_limiter_neither_limits_nor_advertises(api, bearer, down, settings):
    settings.RATELIMIT = {**settings.RATELIMIT, "ENABLED": False}
    response = api.get("/v1/me", **bearer)
    assert response.status_code == 200
    assert "RateLimit" not in response


def test_a_store_that_cannot_be_imported_fails_closed_too(api, bearer, settings):
    settings.RATELIMIT = {"STORE": "apps.ratelimit.stores.nowhere.Store"}
    assert_envelope_503(api.get("/v1/me", **bearer))
