"""GET /v1/me with personal API keys (docs/spec.md 2.1, 4.1, 5.8, 5.9, 7.2)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.apikeys.models import ApiKey
from apps.apikeys.services import apikey_revoke, apikey_rotate
from tests.support.envelope import assert_error
from tests.support.factories import make_api_key

pytestmark = pytest.mark.django_db

WWW_V1 = 'Bearer error="invalid_token", resource_metadata="http://testserver/.well-known/oauth-protected-resource/v1"'


def auth(secret):
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


def test_me_returns_the_user_object(api, user, bearer):
    response = api.get("/v1/me", **bearer)
    assert response.status_code == 200
    assert response.json() == {
        "object": "user",
        "id": user.id,
        "email": "ada@example.com",
        "display_name": "Ada Lovelace",
        "country_code": None,
        "time_zone": None,
        "livemode": True,
    }
    assert user.id.startswith("usr_")
    assert response["Service-Version"] == "2026-10-01"
    assert response["Request-Id"].startswith("req_")


def test_test_key_sees_livemode_false(api, user):
    _key, secret = make_api_key(user, livemode=False)
    assert secret.startswith("sk_test_")
    response = api.get("/v1/me", **auth(secret))
    assert response.status_code == 200
    assert response.json()["livemode"] is False


def test_live_key_has_live_prefix_and_long_random_part(api_key):
    _key, secret = api_key
    assert secret.startswith("sk_live_")
    assert len(secret) - len("sk_live_") >= 40


@pytest.fixture
def uncached(settings):
    """The in-process store caches no credential: every request reads the database
    (tests/api_v1/test_credential_cache.py covers the shared store's cache, which needs none)."""
    settings.RATELIMIT = {"STORE": "apps.ratelimit.stores.memory.MemoryStore"}


def test_me_is_one_sql_statement(api, bearer, uncached, django_assert_num_queries):
    api.get("/v1/me", **bearer)  # first use stamps last_used_at
    with django_assert_num_queries(1):
        assert api.get("/v1/me", **bearer).status_code == 200


def test_last_used_at_is_written_at_most_once_a_minute(api, api_key, bearer, uncached, django_assert_num_queries):
    key, _secret = api_key
    api.get("/v1/me", **bearer)
    key.refresh_from_db()
    first = key.last_used_at
    assert first is not None
    with django_assert_num_queries(1):
        api.get("/v1/me", **bearer)
    key.refresh_from_db()
    assert key.last_used_at == first
    ApiKey.objects.filter(pk=key.pk).update(last_used_at=first - timedelta(seconds=61))
    with django_assert_num_queries(2):
        api.get("/v1/me", **bearer)
    key.refresh_from_db()
    assert key.last_used_at > first


def test_missing_credential_is_invalid_token_with_www_authenticate(api):
    response = api.get("/v1/me")
    assert_error(response, 401, "invalid_token", type_="authentication_error")
    assert response["WWW-Authenticate"] == WWW_V1


@pytest.mark.parametrize(
    "header",
    [
        "Bearer sk_live_wrongwrongwrongwrongwrongwrongwrongwrongwro",
        "Bearer sk_live_short",
        "Bearer sat_notatoken",
        "Bearer srt_notatoken",
        "Bearer nonsense",
        "Basic dXNlcjpwYXNz",
        "Bearer",
        "Bearer  ",
        "Bearer a b",
    ],
)
def test_wrong_credentials_are_invalid_token(api, header):
    response = api.get("/v1/me", HTTP_AUTHORIZATION=header)
    assert_error(response, 401, "invalid_token")
    assert response["WWW-Authenticate"] == WWW_V1


def test_malformed_key_is_refused_before_any_query(api, db, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = api.get("/v1/me", HTTP_AUTHORIZATION="Bearer sk_live_!!!")
    assert response.status_code == 401


def test_expired_key_is_invalid_token(api, api_key, bearer):
    key, _ = api_key
    ApiKey.objects.filter(pk=key.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert_error(api.get("/v1/me", **bearer), 401, "invalid_token")


def test_revoked_key_is_invalid_token(api, api_key, bearer):
    key, _ = api_key
    apikey_revoke(key=key)
    assert_error(api.get("/v1/me", **bearer), 401, "invalid_token")


def test_rotation_kills_the_old_secret(api, api_key, bearer):
    key, _old = api_key
    _key, new = apikey_rotate(key=key)
    assert_error(api.get("/v1/me", **bearer), 401, "invalid_token")
    assert api.get("/v1/me", **auth(new)).status_code == 200


def test_closed_account_is_invalid_token(api, user, bearer):
    user.is_active = False
    user.save()
    assert_error(api.get("/v1/me", **bearer), 401, "invalid_token")


def test_key_secret_is_stored_only_as_digest(api_key):
    key, secret = api_key
    key.refresh_from_db()
    stored = [str(getattr(key, f.attname)) for f in ApiKey._meta.fields]
    assert all(secret not in value and secret[8:] not in value for value in stored)
    assert len(key.secret_digest) == 64


@pytest.mark.parametrize(
    ("allowlist", "address", "allowed"),
    [
        (["203.0.113.7"], "203.0.113.7", True),
        (["203.0.113.7"], "203.0.113.8", False),
        (["203.0.113.0/24"], "203.0.113.200", True),
        (["203.0.113.0/24"], "198.51.100.1", False),
        (["2001:db8::/32"], "2001:db8:1::5", True),
        (["2001:db8::/32"], "2001:db9::5", False),
        (["2001:db8::1"], "2001:db8::1", True),
        (["203.0.113.7"], "::ffff:203.0.113.7", True),
    ],
)
def test_ip_allowlist(api, user, allowlist, address, allowed):
    _key, secret = make_api_key(user, ip_allowlist=allowlist)
    response = api.get("/v1/me", REMOTE_ADDR=address, **auth(secret))
    if allowed:
        assert response.status_code == 200
    else:
        assert_error(response, 403, "ip_not_allowed", type_="permission_error")


def test_token_in_query_is_refused_even_with_a_valid_key(api, api_key, bearer, django_assert_num_queries):
    _key, secret = api_key
    with django_assert_num_queries(0):
        response = api.get(f"/v1/me?access_token={secret}", **bearer)
    assert_error(response, 400, "token_in_query", param="access_token")


def test_token_in_query_without_header(api):
    response = api.get("/v1/me?access_token=sk_live_x")
    assert_error(response, 400, "token_in_query", param="access_token")
