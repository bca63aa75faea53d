"""/v1 reads, failed bearer checks and key management through the real stack (docs/spec.md 8.1, 8.2, 8.4)."""

import pytest

from tests.support.factories import UserFactory, make_api_key

pytestmark = pytest.mark.django_db


def auth(secret):
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


def test_an_allowed_read_carries_the_headers_of_its_tightest_budget(api, bearer, store):
    response = api.get("/v1/me", **bearer)
    assert response.status_code == 200
    assert response["RateLimit"] == "limit=60, remaining=59, reset=0"
    assert response["RateLimit-Policy"] == "60;w=60"
    assert response["X-RateLimit-Limit"] == "60"
    assert response["X-RateLimit-Remaining"] == "59"
    assert response["X-RateLimit-Reset"] == str(int(store.clock()))
    assert "Retry-After" not in response  # only on 429 and 503


def test_sixty_reads_a_minute_per_principal_then_429_then_one_a_second(api, bearer, store):
    statuses = [api.get("/v1/me", **bearer).status_code for _ in range(60)]
    assert statuses == [200] * 60
    denied = api.get("/v1/me", **bearer)
    assert denied.status_code == 429
    error = denied.json()["error"]
    assert error["type"] == "rate_limit_error"
    assert error["code"] == "rate_limited"
    assert error["message"] == "Too many requests. Retry in 1 second."
    assert error["request_id"] == denied["Request-Id"]
    assert denied["Retry-After"] == "1"
    assert denied["RateLimit"] == "limit=60, remaining=0, reset=1"
    assert denied["X-RateLimit-Remaining"] == "0"
    assert denied["Cache-Control"] == "no-store"
    assert denied["Service-Version"] == "2026-10-01"
    store.clock.advance(1)
    assert api.get("/v1/me", **bearer).status_code == 200
    assert api.get("/v1/me", **bearer).status_code == 429


def test_the_user_budget_of_120_spans_every_key_of_the_user(api, user, store):
    secrets = [make_api_key(user, name=f"k{i}")[1] for i in range(3)]
    assert all(api.get("/v1/me", **auth(secrets[0])).status_code == 200 for _ in range(60))
    assert all(api.get("/v1/me", **auth(secrets[1])).status_code == 200 for _ in range(60))
    denied = api.get("/v1/me", **auth(secrets[2]))
    assert denied.status_code == 429
    assert denied["RateLimit-Policy"] == "120;w=60"
    assert denied["RateLimit"] == "limit=120, remaining=0, reset=1"
    # Another user on the same address is untouched.
    other = make_api_key(UserFactory())[1]
    assert api.get("/v1/me", **auth(other)).status_code == 200


def test_headers_are_exposed_to_browsers(api, bearer, store):
    response = api.get("/v1/me", HTTP_ORIGIN="https://app.example.org", **bearer)
    exposed = {h.strip().lower() for h in response["Access-Control-Expose-Headers"].split(",")}
    assert {
        "ratelimit",
        "ratelimit-policy",
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
        "retry-after",
    } <= exposed


def test_failed_bearer_checks_turn_into_429_after_sixty_a_minute(api, store):
    bad = auth("sk_live_" + "x" * 43)
    first = api.get("/v1/me", **bad)
    assert first.status_code == 401
    assert first["RateLimit"] == "limit=60, remaining=59, reset=0"
    assert "Retry-After" not in first
    assert all(api.get("/v1/me", **bad).status_code == 401 for _ in range(59))
    denied = api.get("/v1/me", **bad)
    assert denied.status_code == 429
    assert denied.json()["error"]["code"] == "rate_limited"
    assert denied["Retry-After"] == "1"
    assert "WWW-Authenticate" not in denied
    # Any unknown credential from the source is refused the same way.
    assert api.get("/v1/me", **auth("sat_unknown")).status_code == 429
    store.clock.advance(1)
    assert api.get("/v1/me", **bad).status_code == 401


def test_a_valid_credential_or_none_never_spends_the_failed_bearer_budget(api, bearer, store):
    for _ in range(5):
        assert api.get("/v1/me", **bearer).status_code == 200
        assert api.get("/v1/me").status_code == 401  # no credential presented
        assert api.get("/v1/me", HTTP_AUTHORIZATION="Bearer").status_code == 401  # nothing presented
    first_failure = api.get("/v1/me", **auth("sk_live_nope"))
    assert first_failure["RateLimit"] == "limit=60, remaining=59, reset=0"


def test_a_valid_credential_still_works_while_its_source_is_refused_for_failures(api, bearer, store):
    for _ in range(61):
        api.get("/v1/me", **auth("sk_live_nope"))
    assert api.get("/v1/me", **auth("sk_live_nope")).status_code == 429
    assert api.get("/v1/me", **bearer).status_code == 200


def test_failed_bearer_budget_is_per_source_and_ipv6_per_64(api, store):
    bad = auth("sk_live_nope")
    for i in range(60):
        api.get("/v1/me", REMOTE_ADDR=f"2001:db8:1:2::{i + 1:x}", **bad)
    # Same /64, another address: the same budget.
    assert api.get("/v1/me", REMOTE_ADDR="2001:db8:1:2:ffff::1", **bad).status_code == 429
    # Next /64 and an IPv4 source: their own budgets.
    assert api.get("/v1/me", REMOTE_ADDR="2001:db8:1:3::1", **bad).status_code == 401
    assert api.get("/v1/me", REMOTE_ADDR="192.0.2.7", **bad).status_code == 401


def test_source_is_remote_addr_unless_a_trusted_proxy_forwards(api, settings, store):
    bad = auth("sk_live_nope")
    spoofed = {"REMOTE_ADDR": "192.0.2.1", "HTTP_X_FORWARDED_FOR": "198.51.100.9"}
    for _ in range(60):
        api.get("/v1/me", **spoofed, **bad)
    # Untrusted X-Forwarded-For is ignored: every try counted against 192.0.2.1.
    assert api.get("/v1/me", REMOTE_ADDR="192.0.2.1", **bad).status_code == 429
    settings.TRUSTED_PROXIES = ["192.0.2.1"]
    assert api.get("/v1/me", **spoofed, **bad).status_code == 401  # now keyed by 198.51.100.9


def test_mcp_failed_bearer_checks_share_the_budget(api, store):
    for _ in range(60):
        api.get("/v1/me", **auth("sk_live_nope"))
    response = api.post("/mcp", {}, format="json", **auth("sat_unknown"))
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "rate_limited"


def test_key_management_is_thirty_a_minute_per_user(api, user, store):
    api.force_login(user)
    statuses = [api.get("/v1/api-keys").status_code for _ in range(31)]
    assert statuses == [200] * 30 + [429]
    denied = api.get("/v1/api-keys")
    assert denied.json()["error"]["code"] == "rate_limited"
    assert denied["RateLimit-Policy"] == "30;w=60"
    assert int(denied["Retry-After"]) == 2  # one unit of 30/min
    # Reads of the same user through a key are a separate budget.
    _key, secret = make_api_key(user)
    assert api.get("/v1/me", **auth(secret)).status_code == 200


def test_key_management_counts_every_method(api, user, store):
    api.force_login(user)
    for _ in range(29):
        api.get("/v1/api-keys")
    created = api.post("/v1/api-keys", {"name": "ci", "scopes": ["rates:read"]}, format="json")
    assert created.status_code in (200, 201), created.content
    assert created["X-RateLimit-Remaining"] == "0"
    denied = api.post("/v1/api-keys", {"name": "ci2", "scopes": ["rates:read"]}, format="json")
    assert denied.status_code == 429
    assert denied.json()["error"]["code"] == "rate_limited"
    # The refused create changed nothing.
    assert api.get("/v1/api-keys", REMOTE_ADDR="198.51.100.8").status_code == 429  # per user, not per address
    store.clock.advance(2)
    listed = api.get("/v1/api-keys").json()["data"]
    assert [k["name"] for k in listed] == ["ci"]


def test_an_authenticated_options_request_is_a_read_and_is_refused_once_the_budget_is_spent(api, bearer, store):
    first = api.options("/v1/me", **bearer)
    assert first.status_code == 200
    assert first["RateLimit"] == "limit=60, remaining=59, reset=0"
    assert all(api.get("/v1/me", **bearer).status_code == 200 for _ in range(59))
    denied = api.options("/v1/me", **bearer)
    assert denied.status_code == 429
    assert denied.json()["error"]["code"] == "rate_limited"
    assert denied["Retry-After"] == "1"


def test_a_cors_preflight_is_answered_after_the_budget_is_spent(api, bearer, store):
    assert all(api.get("/v1/me", **bearer).status_code == 200 for _ in range(60))
    preflight = api.options(
        "/v1/me",
        HTTP_ORIGIN="https://app.example.org",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization",
    )
    assert preflight.status_code in (200, 204)
    assert "access-control-allow-origin" in {name.lower() for name in preflight.headers}
