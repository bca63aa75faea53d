"""Budgets applied by path before any view: metadata, authorize, register, token flood guard (docs/spec.md 8.2)."""

import pytest

from tests.support.oauth import FORM, post_form

pytestmark = pytest.mark.django_db

WELL_KNOWN = "/.well-known/oauth-protected-resource/v1"


def test_metadata_is_300_a_minute_per_address_across_well_known_and_openapi(api, store):
    first = api.get(WELL_KNOWN)
    assert first.status_code == 200
    assert first["RateLimit"] == "limit=300, remaining=299, reset=0"
    assert first["RateLimit-Policy"] == "300;w=60"
    for _ in range(298):
        api.get("/.well-known/oauth-authorization-server")
    last = api.get("/v1/openapi.json")
    assert last.status_code == 200
    assert last["X-RateLimit-Remaining"] == "0"
    denied = api.get(WELL_KNOWN)
    assert denied.status_code == 429
    assert denied.json()["error"]["code"] == "rate_limited"
    assert denied["Retry-After"] == "1"
    assert denied["RateLimit"] == "limit=300, remaining=0, reset=1"
    assert api.get("/v1/openapi.json").status_code == 429
    assert api.get(WELL_KNOWN, REMOTE_ADDR="198.51.100.1").status_code == 200


def test_cors_preflight_is_not_counted(api, store):
    preflight = {"HTTP_ORIGIN": "https://app.example.org", "HTTP_ACCESS_CONTROL_REQUEST_METHOD": "GET"}
    for _ in range(5):
        api.options(WELL_KNOWN, **preflight)
    assert api.get(WELL_KNOWN)["X-RateLimit-Remaining"] == "299"


def test_authorize_is_30_a_minute_per_address_with_the_oauth_error_shape(api, store):
    for _ in range(30):
        assert api.get("/oauth/authorize").status_code != 429
    denied = api.get("/oauth/authorize")
    assert denied.status_code == 429
    assert denied.json()["error"] == "temporarily_unavailable"
    assert "request_id" not in denied.json()
    assert denied["Retry-After"] == "2"
    assert denied["RateLimit"] == "limit=30, remaining=0, reset=2"
    assert denied["RateLimit-Policy"] == "30;w=60"
    assert denied["Cache-Control"] == "no-store"


def register(api, **extra):
    return api.post("/oauth/register", {"client_name": "x"}, format="json", **extra)


def test_register_is_also_20_an_hour_per_address(api, store):
    statuses = [register(api).status_code for _ in range(21)]
    assert 429 not in statuses[:20]
    assert statuses[20] == 429
    denied = register(api)
    assert denied.json()["error"] == "temporarily_unavailable"
    assert denied["RateLimit-Policy"] == "20;w=3600"
    assert denied["Retry-After"] == "180"  # one registration every three minutes
    store.clock.advance(60)  # the minute budget is full again, the hourly one is not
    assert register(api).status_code == 429
    store.clock.advance(120)
    assert register(api).status_code != 429


def test_register_is_also_60_an_hour_per_ipv6_48_across_its_64s(api, store):
    # Each /64 keeps docs/spec.md's 20 an hour; a /48 holds 65,536 of them, so it has an aggregate of its own.
    for subnet in range(4):
        for host in range(15):
            assert register(api, REMOTE_ADDR=f"2001:db8:7:{subnet}::{host + 1}").status_code != 429
    denied = register(api, REMOTE_ADDR="2001:db8:7:99::1")  # a fresh /64 of the same /48
    assert denied.status_code == 429
    assert denied.json()["error"] == "temporarily_unavailable"
    assert denied["RateLimit-Policy"] == "60;w=3600"
    assert denied["Retry-After"] == "60"
    assert register(api, REMOTE_ADDR="2001:db8:8:99::1").status_code != 429  # another /48
    store.clock.advance(60)  # 60 an hour: one a minute
    assert register(api, REMOTE_ADDR="2001:db8:7:99::1").status_code != 429
    assert register(api, REMOTE_ADDR="2001:db8:7:99::1").status_code == 429


def test_ipv4_addresses_keep_the_per_address_budget_alone(api, store):
    # IPv4 addresses are scarce: no aggregate over a /24 or any other prefix.
    for host in range(4):
        for _ in range(20):
            assert register(api, REMOTE_ADDR=f"198.51.100.{host + 1}").status_code != 429


def test_an_ipv4_mapped_ipv6_caller_is_the_ipv4_caller(api, store):
    for _ in range(20):
        assert register(api, REMOTE_ADDR="::ffff:198.51.100.7").status_code != 429
    assert register(api, REMOTE_ADDR="198.51.100.7").status_code == 429
    assert register(api, REMOTE_ADDR="::ffff:198.51.100.8").status_code != 429


def test_authorize_and_register_share_the_30_a_minute_budget(api, store):
    for _ in range(25):
        api.get("/oauth/authorize")
    for _ in range(5):
        assert register(api).status_code != 429
    denied = register(api)
    assert denied.status_code == 429
    assert denied["RateLimit-Policy"] == "30;w=60"


def test_token_flood_guard_bursts_600_then_120_a_minute_shared_with_revoke(api, client, store):
    for _ in range(300):
        post_form(client, "/oauth/revoke", {"token": "x"})
    allowed = sum(post_form(client, "/oauth/token", {"grant_type": "nope"}).status_code != 429 for _ in range(301))
    assert allowed == 300
    denied = post_form(client, "/oauth/token", {"grant_type": "nope"})
    assert denied.status_code == 429
    assert denied.json() == {
        "error": "temporarily_unavailable",
        "error_description": "Too many requests. Retry after the number of seconds in Retry-After.",
    }
    assert denied["RateLimit-Policy"] == "600;w=60"
    assert denied["Retry-After"] == "1"
    store.clock.advance(1)  # 120/min: two more a second
    assert [post_form(client, "/oauth/revoke", {"token": "x"}).status_code for _ in range(3)] == [200, 200, 429]


def test_an_allowed_token_request_advertises_the_flood_guard(client, store):
    response = client.post("/oauth/token", "grant_type=nope", content_type=FORM)
    assert response.status_code == 400
    assert response["RateLimit"] == "limit=600, remaining=599, reset=0"
    assert response["RateLimit-Policy"] == "600;w=60"
    assert "Retry-After" not in response
