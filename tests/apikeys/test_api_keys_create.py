"""POST /v1/api-keys: validation codes with param, the 10-key limit, expiry, IP allowlists."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.apikeys.models import ApiKey
from apps.core.ids import digest
from apps.credentials.scopes import ALL_SCOPES
from tests.support.envelope import assert_error
from tests.support.factories import make_api_key

RECORD_FIELDS = {
    "object",
    "id",
    "name",
    "scopes",
    "livemode",
    "redacted",
    "ip_allowlist",
    "status",
    "created",
    "expires_at",
    "revoked_at",
    "last_used_at",
}


def test_create_returns_the_record_and_the_secret_once(create, user):
    before = int(timezone.now().timestamp())
    response = create(name="Build server", scopes=["rates:read", "calls:read"])
    assert response.status_code == 201
    body = response.json()
    assert set(body) == RECORD_FIELDS | {"secret"}
    assert body["object"] == "api_key"
    assert body["id"].startswith("key_")
    assert body["name"] == "Build server"
    assert body["scopes"] == ["rates:read", "calls:read"]
    assert body["livemode"] is True
    assert body["secret"].startswith("sk_live_")
    assert body["redacted"] == f"sk_live_...{body['secret'][-4:]}"
    assert body["status"] == "live"
    assert body["ip_allowlist"] == []
    assert body["revoked_at"] is None and body["last_used_at"] is None
    assert before <= body["created"] <= before + 5
    assert body["expires_at"] - body["created"] == 90 * 86400  # default expiry
    key = ApiKey.objects.get(pk=body["id"])
    assert key.user == user
    # Only the digest is at rest.
    assert key.secret_digest == digest(body["secret"])
    assert body["secret"] not in str(ApiKey.objects.filter(pk=key.pk).values().first())


def test_livemode_false_makes_a_test_key(create):
    body = create(livemode=False).json()
    assert body["livemode"] is False
    assert body["secret"].startswith("sk_test_")
    assert body["redacted"].startswith("sk_test_...")


@pytest.mark.parametrize("livemode", ["false", 0, None, "yes"])
def test_livemode_must_be_a_boolean(create, livemode):
    assert_error(create(livemode=livemode), 400, "invalid_request", param="livemode")


@pytest.mark.parametrize(
    "name", ["", "   ", "x" * 101, None, 42, ["a"], "nul\x00", "two\nlines", "esc\x1b[31m", "del\x7f"]
)
def test_invalid_name(create, user, name):
    error = assert_error(create(name=name), 400, "invalid_name", param="name")
    assert error["type"] == "invalid_request_error"
    assert user.api_keys.count() == 0


@pytest.mark.parametrize("name", ["x", "x" * 100, "Ünïcødé ключ 🔑"])
def test_name_bounds_are_inclusive(create, name):
    response = create(name=name)
    assert response.status_code == 201
    assert response.json()["name"] == name


def test_missing_name(dashboard):
    response = dashboard.post("/v1/api-keys", {"scopes": ["rates:read"]}, format="json")
    assert_error(response, 400, "invalid_name", param="name")


@pytest.mark.parametrize(
    "scopes", [[], ["rates:write"], ["rates:read", "nope"], "rates:read", None, [1], [["rates:read"]], {}]
)
def test_invalid_scopes(create, user, scopes):
    error = assert_error(create(scopes=scopes), 400, "invalid_scopes", param="scopes")
    assert user.api_keys.count() == 0
    # The message names the scopes that would do.
    assert f"Known scopes: {', '.join(ALL_SCOPES)}." in error["message"]


def test_an_unknown_scope_is_named(create):
    error = assert_error(create(scopes=["rates:read", "numbers:reed"]), 400, "invalid_scopes", param="scopes")
    assert "'numbers:reed' is not one" in error["message"]


def test_all_ten_scopes_are_accepted_and_duplicates_dropped(create):
    from apps.credentials.scopes import ALL_SCOPES

    body = create(scopes=[*ALL_SCOPES, "rates:read"]).json()
    assert body["scopes"] == list(ALL_SCOPES)


@pytest.mark.parametrize("days", [0, -1, 366, 1000, 1.5, 30.0, "30", True, [30]])
def test_invalid_expiry(create, user, days):
    assert_error(create(expires_in_days=days), 400, "invalid_expiry", param="expires_in_days")
    assert user.api_keys.count() == 0


@pytest.mark.parametrize("days", [1, 365])
def test_expiry_bounds(create, days):
    body = create(expires_in_days=days).json()
    assert body["expires_at"] - body["created"] == days * 86400


def test_null_expiry_is_the_default(create):
    body = create(expires_in_days=None).json()
    assert body["expires_at"] - body["created"] == 90 * 86400


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        (["203.0.113.7"], ["203.0.113.7"]),
        (["203.0.113.0/24"], ["203.0.113.0/24"]),
        (["10.0.0.0/8", "192.168.1.1/32"], ["10.0.0.0/8", "192.168.1.1/32"]),
        (["2001:db8::1"], ["2001:db8::1"]),
        (["2001:DB8::/32"], ["2001:db8::/32"]),
        (["2001:db8:0:0::/64", "::1"], ["2001:db8::/64", "::1"]),
        (["0.0.0.0/0", "::/0"], ["0.0.0.0/0", "::/0"]),
        (["203.0.113.7", "203.0.113.7"], ["203.0.113.7"]),
        ([], []),
    ],
)
def test_ip_allowlist_accepts_ipv4_and_ipv6_addresses_and_ranges(create, given, stored):
    response = create(ip_allowlist=given)
    assert response.status_code == 201, response.content
    assert response.json()["ip_allowlist"] == stored


@pytest.mark.parametrize(
    "allowlist",
    [
        ["not-an-ip"],
        ["10.0.0.1/8"],  # host bits set: refused, not widened
        ["10.0.0.0/33"],
        ["2001:db8::/129"],
        ["2001:db8::1/64"],
        ["256.1.1.1"],
        ["10.0.0"],
        [" 10.0.0.1"],
        [""],
        [10],
        "10.0.0.1",
        {"ip": "10.0.0.1"},
        ["10.0.0.1"] * 51,  # too many entries
        ["fe80::1%eth0"],
    ],
)
def test_invalid_ip_allowlist(create, user, allowlist):
    assert_error(create(ip_allowlist=allowlist), 400, "invalid_ip_allowlist", param="ip_allowlist")
    assert user.api_keys.count() == 0


def test_fifty_allowlist_entries_are_accepted(create):
    entries = [f"10.0.0.{i}" for i in range(1, 51)]
    assert create(ip_allowlist=entries).status_code == 201


def test_limit_of_ten_live_keys(create, user):
    for i in range(10):
        assert create(name=f"k{i}").status_code == 201
    error = assert_error(create(name="eleventh"), 409, "api_key_limit")
    assert error["type"] == "invalid_request_error"
    assert user.api_keys.count() == 10


def test_test_keys_count_towards_the_limit(create, user):
    for i in range(10):
        assert create(name=f"k{i}", livemode=bool(i % 2)).status_code == 201
    assert_error(create(), 409, "api_key_limit")


def test_revoked_and_expired_keys_free_a_slot(create, dashboard, user):
    keys = [create(name=f"k{i}").json()["id"] for i in range(10)]
    assert_error(create(), 409, "api_key_limit")
    dashboard.delete(f"/v1/api-keys/{keys[0]}")
    assert create(name="after revoke").status_code == 201
    ApiKey.objects.filter(pk=keys[1]).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert create(name="after expiry").status_code == 201
    assert_error(create(), 409, "api_key_limit")


def test_the_limit_is_per_user(create, user):
    for _ in range(10):
        make_api_key()  # other users' keys
    assert create().status_code == 201


@pytest.mark.parametrize("body", ['["name"]', '"x"', "null", "42", "{bad json", ""])
def test_body_that_is_not_a_json_object(dashboard, user, body):
    response = dashboard.post("/v1/api-keys", body, content_type="application/json")
    assert_error(response, 400, "invalid_body")
    assert user.api_keys.count() == 0


def test_unknown_fields_are_refused_with_param(create, user):
    assert_error(create(expires_in_day=30), 400, "invalid_request", param="expires_in_day")
    assert user.api_keys.count() == 0


def test_form_encoded_body_is_415(dashboard):
    response = dashboard.post("/v1/api-keys", {"name": "x"})  # multipart
    assert_error(response, 415, "unsupported_media_type")


def test_accept_must_allow_json(dashboard):
    response = dashboard.get("/v1/api-keys", HTTP_ACCEPT="text/html")
    assert_error(response, 406, "not_acceptable")


def test_first_invalid_field_is_reported_in_order(create):
    # name is checked first, then scopes, expiry, allowlist.
    response = create(name="", scopes=[], expires_in_days=0, ip_allowlist=["x"])
    assert_error(response, 400, "invalid_name", param="name")


@pytest.mark.parametrize("key", [None, "nested-1"])
def test_deeply_nested_json_is_invalid_body_not_a_500(dashboard, user, key):
    extra = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    body = '{"name": ' + "[" * 5000 + "]" * 5000 + ', "scopes": ["rates:read"]}'
    response = dashboard.post("/v1/api-keys", body, content_type="application/json", **extra)
    assert_error(response, 400, "invalid_body")
    assert user.api_keys.count() == 0


@pytest.mark.parametrize(
    ("allowlist", "inside", "outside"),
    [
        (["203.0.113.0/24"], "203.0.113.200", "203.0.114.1"),
        (["203.0.113.7"], "203.0.113.7", "203.0.113.8"),
        (["2001:db8:abcd::/48"], "2001:db8:abcd:12::1", "2001:db8:abce::1"),
        (["2001:db8::1"], "2001:db8::1", "2001:db8::2"),
        (["198.51.100.0/24"], "::ffff:198.51.100.9", "::ffff:198.51.101.9"),  # IPv4-mapped callers
    ],
)
def test_a_created_allowlist_is_enforced_at_v1_me(create, api, allowlist, inside, outside):
    secret = create(ip_allowlist=allowlist).json()["secret"]
    auth = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    assert api.get("/v1/me", REMOTE_ADDR=inside, **auth).status_code == 200
    assert_error(api.get("/v1/me", REMOTE_ADDR=outside, **auth), 403, "ip_not_allowed")
