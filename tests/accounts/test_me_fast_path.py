"""GET /v1/me answers alike on its fast path and through MeApi's DRF cycle (apps/accounts/apis.me_view).

The fast path takes the request nearly every client sends (GET, a bearer,
JSON or anything accepted); each case below is asked both ways, the fast path
turned off for the second, and the answers compared: status, body and every
header but the per-request ones (tests/support/fast_path.py).
"""

from datetime import date, timedelta

import pytest
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.utils import OperationalError
from django.test import Client
from django.utils import timezone

from apps.api_v1 import versions
from apps.apikeys.services import apikey_revoke
from apps.ratelimit.testing import frozen_clock
from tests.support import fast_path
from tests.support.factories import UserFactory, make_api_key
from tests.support.oauth import MCP, issue, make_client

pytestmark = pytest.mark.django_db


def answer(secret=None, *, via_drf: bool, **headers):
    return fast_path.answer("/v1/me", secret, via_drf=via_drf, **headers)


def alike(secret=None, **headers):
    return fast_path.alike("/v1/me", secret, **headers)


def test_api_key():
    _key, secret = make_api_key(UserFactory())
    status, body, headers = alike(secret)
    assert status == 200 and body["object"] == "user"
    assert headers["allow"] == "GET, HEAD, OPTIONS"
    assert headers["content-type"] == "application/json"
    assert headers["service-version"] == versions.CURRENT_VERSION


def test_oauth_access_token():
    token = issue(UserFactory(), make_client())["access_token"]
    assert alike(token)[0] == 200


@pytest.mark.parametrize("accept", ["", "*/*", "application/json"])
def test_the_accept_headers_of_the_fast_path(accept):
    _key, secret = make_api_key(UserFactory())
    assert alike(secret, HTTP_ACCEPT=accept)[0] == 200


@pytest.mark.parametrize(
    "secret",
    ["sk_live_" + "A" * 43, "sk_live_nope", "sat_" + "B" * 43, "srt_" + "C" * 43, "nothing-we-issue"],
)
def test_unknown_credentials(secret):
    status, body, headers = alike(secret)
    assert status == 401 and body["error"]["code"] == "invalid_token"
    assert "www-authenticate" in headers


def test_a_revoked_key():
    key, secret = make_api_key(UserFactory())
    apikey_revoke(key=key)
    assert alike(secret)[0] == 401


def test_a_token_bound_to_mcp():
    token = issue(UserFactory(), make_client(), resource=MCP)["access_token"]
    assert alike(token)[0] == 401


def test_an_address_outside_the_allowlist():
    _key, secret = make_api_key(UserFactory(), ip_allowlist=["203.0.113.0/24"])
    status, body, _ = alike(secret)
    assert status == 403 and body["error"]["code"] == "ip_not_allowed"


def test_versions_named_in_the_header():
    _key, secret = make_api_key(UserFactory())
    assert alike(secret, HTTP_SERVICE_VERSION=versions.CURRENT_VERSION)[0] == 200
    status, body, _ = alike(secret, HTTP_SERVICE_VERSION="1999-01-01")
    assert status == 400 and body["error"]["param"] == "Service-Version"


def test_a_version_past_its_sunset(monkeypatch):
    table = dict(versions.VERSIONS)
    table["2024-01-01"] = versions.ApiVersion(
        "2024-01-01", deprecated_on=date(2025, 1, 1), sunset_on=timezone.now().date() - timedelta(days=1)
    )
    monkeypatch.setattr(versions, "VERSIONS", table)
    _key, secret = make_api_key(UserFactory())
    assert alike(secret, HTTP_SERVICE_VERSION="2024-01-01")[0] == 410


def test_a_spent_budget():
    _key, secret = make_api_key(UserFactory())
    # The reads budget refills one a second: on a stopped clock the 61st read is refused both ways.
    with frozen_clock():
        for _ in range(60):
            answer(secret, via_drf=False)
        status, body, _ = alike(secret)
    assert status == 429 and body["error"]["code"] == "rate_limited"


def test_the_database_down(monkeypatch, settings):
    settings.RATELIMIT = {"STORE": "apps.ratelimit.stores.memory.MemoryStore"}  # nothing cached
    _key, secret = make_api_key(UserFactory())

    def refuse(self):
        raise OperationalError("connection refused")

    monkeypatch.setattr(BaseDatabaseWrapper, "ensure_connection", refuse)
    status, body, _ = alike(secret)
    assert status == 503 and body["error"]["code"] == "service_unavailable"


def test_requests_the_fast_path_leaves_to_drf():
    """No credential, a malformed header, HEAD and a narrow Accept are MeView's own answers."""
    _key, secret = make_api_key(UserFactory())
    assert answer(via_drf=False)[0] == 401
    assert answer(via_drf=False, HTTP_AUTHORIZATION="Basic abc")[0] == 401
    assert answer(secret, via_drf=False, HTTP_ACCEPT="text/html")[0] == 406
    head = Client().head("/v1/me", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert head.status_code == 200 and head["Allow"] == "GET, HEAD, OPTIONS"


def test_the_openapi_document_still_describes_me():
    document = Client().get("/v1/openapi.json").json()
    assert document["paths"]["/v1/me"]["get"]["operationId"] == "retrieve_me"
