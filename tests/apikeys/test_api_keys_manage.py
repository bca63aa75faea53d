"""Read, revoke and rotate one key; another account's key is always api_key_not_found."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.apikeys.models import ApiKey
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory, make_api_key


@pytest.fixture
def key_and_secret(user):
    return make_api_key(user, name="Reporting", scopes=["rates:read", "calls:read"], ip_allowlist=["10.0.0.0/8"])


def test_read_one_key_has_no_secret(dashboard, key_and_secret):
    key, secret = key_and_secret
    response = dashboard.get(f"/v1/api-keys/{key.id}")
    assert response.status_code == 200
    body = response.json()
    assert "secret" not in body
    assert secret not in response.content.decode()
    assert body["id"] == key.id
    assert body["name"] == "Reporting"
    assert body["scopes"] == ["rates:read", "calls:read"]
    assert body["ip_allowlist"] == ["10.0.0.0/8"]
    assert body["redacted"] == f"sk_live_...{secret[-4:]}"
    assert body["status"] == "live"


def test_expired_key_reads_as_expired(dashboard, key_and_secret):
    key, _ = key_and_secret
    ApiKey.objects.filter(pk=key.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert dashboard.get(f"/v1/api-keys/{key.id}").json()["status"] == "expired"


@pytest.mark.parametrize(
    ("method", "suffix"), [("get", ""), ("delete", ""), ("post", "/rotate")], ids=["read", "revoke", "rotate"]
)
@pytest.mark.parametrize(
    "key_id",
    # An id holding a control character is refused before the view (tests/core/test_input_guard.py).
    ["other", "key_doesnotexist000000000000", "nope", "sk_live_abc", "key_%C3%A9", "key_" + "a" * 40],
)
def test_not_found_for_missing_malformed_or_another_users_key(dashboard, method, suffix, key_id):
    other_key, other_secret = make_api_key(UserFactory())
    if key_id == "other":
        key_id = other_key.id
    response = getattr(dashboard, method)(f"/v1/api-keys/{key_id}{suffix}")
    error = assert_error(response, 404, "api_key_not_found", param="id")
    assert error["type"] == "not_found_error"
    other_key.refresh_from_db()
    assert other_key.status == "live"
    assert other_key.secret_last4 == other_secret[-4:]


def me(api, secret):
    """GET /v1/me with ``secret``, from an address inside the key's allowlist."""
    return api.get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {secret}", REMOTE_ADDR="10.1.2.3")


def test_revoke_returns_the_revoked_record_and_kills_the_key(dashboard, api, key_and_secret):
    key, secret = key_and_secret
    assert me(api, secret).status_code == 200
    response = dashboard.delete(f"/v1/api-keys/{key.id}")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "revoked"
    assert body["revoked_at"] is not None
    assert "secret" not in body
    assert_error(me(api, secret), 401, "invalid_token")


def test_revoking_twice_is_harmless_and_keeps_the_first_time(dashboard, key_and_secret):
    key, _ = key_and_secret
    first = dashboard.delete(f"/v1/api-keys/{key.id}").json()
    second = dashboard.delete(f"/v1/api-keys/{key.id}")
    assert second.status_code == 200
    assert second.json()["revoked_at"] == first["revoked_at"]


def test_rotate_kills_the_old_secret_at_once(dashboard, api, key_and_secret):
    key, old_secret = key_and_secret
    assert me(api, old_secret).status_code == 200

    response = dashboard.post(f"/v1/api-keys/{key.id}/rotate")
    assert response.status_code == 200
    body = response.json()
    new_secret = body["secret"]
    assert new_secret.startswith("sk_live_") and new_secret != old_secret
    assert body["id"] == key.id
    assert body["redacted"] == f"sk_live_...{new_secret[-4:]}"
    # Everything but the secret is kept.
    assert body["name"] == "Reporting"
    assert body["scopes"] == ["rates:read", "calls:read"]
    assert body["ip_allowlist"] == ["10.0.0.0/8"]
    assert body["expires_at"] == int(key.expires_at.timestamp())

    assert_error(me(api, old_secret), 401, "invalid_token")
    assert me(api, new_secret).status_code == 200


def test_rotating_a_test_key_keeps_it_a_test_key(dashboard, user):
    key, _ = make_api_key(user, livemode=False)
    assert dashboard.post(f"/v1/api-keys/{key.id}/rotate").json()["secret"].startswith("sk_test_")


def test_rotate_a_revoked_key_is_409(dashboard, key_and_secret):
    key, secret = key_and_secret
    dashboard.delete(f"/v1/api-keys/{key.id}")
    error = assert_error(dashboard.post(f"/v1/api-keys/{key.id}/rotate"), 409, "api_key_revoked")
    assert error["type"] == "invalid_request_error"
    key.refresh_from_db()
    assert key.secret_last4 == secret[-4:]


def test_rotate_an_expired_key_is_409(dashboard, key_and_secret):
    key, secret = key_and_secret
    ApiKey.objects.filter(pk=key.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert_error(dashboard.post(f"/v1/api-keys/{key.id}/rotate"), 409, "api_key_expired")
    key.refresh_from_db()
    assert key.secret_last4 == secret[-4:]


def test_revoked_and_expired_key_reports_revoked(dashboard, key_and_secret):
    key, _ = key_and_secret
    ApiKey.objects.filter(pk=key.pk).update(expires_at=timezone.now() - timedelta(seconds=1), revoked_at=timezone.now())
    assert_error(dashboard.post(f"/v1/api-keys/{key.id}/rotate"), 409, "api_key_revoked")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("put", "/v1/api-keys"),
        ("delete", "/v1/api-keys"),
        ("patch", "/v1/api-keys/{id}"),
        ("put", "/v1/api-keys/{id}"),
        ("post", "/v1/api-keys/{id}"),
        ("get", "/v1/api-keys/{id}/rotate"),
        ("delete", "/v1/api-keys/{id}/rotate"),
    ],
)
def test_wrong_method_is_405(dashboard, key_and_secret, method, path):
    key, _ = key_and_secret
    response = getattr(dashboard, method)(path.format(id=key.id), {}, format="json")
    assert_error(response, 405, "method_not_allowed")
    key.refresh_from_db()
    assert key.status == "live"


@pytest.mark.parametrize("path", ["/v1/api-keys/", "/v1/api-keys/{id}/", "/v1/api-keys/{id}/rotate/", "/v1/api-key"])
def test_trailing_slashes_and_near_misses_are_route_not_found_never_redirects(dashboard, key_and_secret, path):
    key, _ = key_and_secret
    response = dashboard.post(path.format(id=key.id), {}, format="json")
    assert_error(response, 404, "route_not_found")


def test_create_rotate_revoke_through_the_endpoints_are_audited(dashboard, user):
    from apps.audit.models import AuditEvent, EventType

    created = dashboard.post("/v1/api-keys", {"name": "audited", "scopes": ["rates:read"]}, format="json")
    key_id = created.json()["id"]
    rotated = dashboard.post(f"/v1/api-keys/{key_id}/rotate", REMOTE_ADDR="198.51.100.4")
    revoked = dashboard.delete(f"/v1/api-keys/{key_id}")
    dashboard.delete(f"/v1/api-keys/{key_id}")  # a repeat records nothing
    dashboard.post(f"/v1/api-keys/{key_id}/rotate")  # refused: records nothing

    events = list(AuditEvent.objects.filter(key_id=key_id).order_by("created", "id"))
    assert [e.event_type for e in events] == [
        EventType.API_KEY_CREATED,
        EventType.API_KEY_ROTATED,
        EventType.API_KEY_REVOKED,
    ]
    assert all(e.user_id == user.id and e.actor_id == user.id for e in events)
    assert [e.request_id for e in events] == [r["Request-Id"] for r in (created, rotated, revoked)]
    assert events[1].ip_address == "198.51.100.4"
    # The audit log never holds the secret.
    assert created.json()["secret"] not in str(list(AuditEvent.objects.values()))
