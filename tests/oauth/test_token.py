"""POST /oauth/token: both grants, docs/spec.md 2.6, 3.2, 3.3 and the token rows of 7.3."""

from datetime import timedelta
from unittest import mock

import pytest
from django.test import Client
from django.utils import timezone

from apps.core.ids import digest
from apps.oauth.models import AccessToken, Grant, RefreshToken
from apps.oauth.token.lockouts import FAILED_EXCHANGE_WINDOW, failure_key
from apps.ratelimit.services import ratelimit_count
from apps.ratelimit.testing import clear_budgets
from tests.support.oauth import (
    FORM,
    MCP,
    REDIRECT,
    V1,
    exchange,
    exchange_fields,
    get_code,
    make_client,
    pkce,
    post_form,
    refresh,
    signed_in,
    tokens_for,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def issued(user, app):
    """A fresh code and its verifier."""
    verifier, challenge = pkce()
    code = get_code(signed_in(user), app, challenge)
    return code, verifier


def oauth_error(response, error, status=400):
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    assert body["error"] == error
    assert set(body) <= {"error", "error_description"}
    assert "Request-Id" in response
    return body


# -- authorization_code -------------------------------------------------------


def test_code_exchange_response(app, issued, user):
    code, verifier = issued
    response = exchange(Client(), app, code, verifier)
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"access_token", "token_type", "expires_in", "refresh_token", "scope"}
    assert body["access_token"].startswith("sat_") and len(body["access_token"]) >= 44
    assert body["refresh_token"].startswith("srt_") and len(body["refresh_token"]) >= 44
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 3600
    assert body["scope"] == "rates:read calls:read"
    access = AccessToken.objects.get()
    refresh_row = RefreshToken.objects.get()
    # only digests at rest
    assert access.token == "" and access.token_checksum == digest(body["access_token"])
    assert refresh_row.token == "" and refresh_row.token_checksum == digest(body["refresh_token"])
    assert access.resource == [V1] and refresh_row.resource == [V1]
    grant = Grant.objects.get()
    assert grant.used_at is not None  # marked used, never deleted
    assert access.family == refresh_row.token_family == grant.family
    assert (access.expires - timezone.now()).total_seconds() == pytest.approx(3600, abs=5)
    assert (refresh_row.expires - timezone.now()).total_seconds() == pytest.approx(14 * 86400, abs=5)
    assert (refresh_row.family_expires - timezone.now()).total_seconds() == pytest.approx(30 * 86400, abs=5)
    assert access.user == user
    app.refresh_from_db()
    assert app.last_used_at is not None


def test_mcp_bound_code_gives_mcp_bound_token(user, app):
    body = tokens_for(user, app, resource=MCP)
    assert AccessToken.objects.get(token_checksum=digest(body["access_token"])).resource == [MCP]


@pytest.mark.parametrize("field", ["grant_type", "code", "code_verifier", "client_id", "redirect_uri", "resource"])
def test_code_exchange_missing_field(app, issued, field):
    code, verifier = issued
    body = oauth_error(exchange(Client(), app, code, verifier, **{field: None}), "invalid_request")
    assert field in body["error_description"]
    assert AccessToken.objects.count() == 0
    assert Grant.objects.get().used_at is None  # nothing changed: the code still works
    assert exchange(Client(), app, code, verifier).status_code == 200


def test_query_string_is_refused(app, issued):
    code, verifier = issued
    client = Client()
    response = client.post(
        f"/oauth/token?code={code}",
        f"grant_type=authorization_code&code_verifier={verifier}&client_id={app.client_id}"
        f"&redirect_uri={REDIRECT}&resource={V1}",
        content_type=FORM,
    )
    oauth_error(response, "invalid_request")
    # all parameters in the query string, none in the body
    response = client.post(f"/oauth/token?grant_type=authorization_code&code={code}", "", content_type=FORM)
    oauth_error(response, "invalid_request")
    assert AccessToken.objects.count() == 0


@pytest.mark.parametrize(
    "content_type,payload",
    [
        ("application/json", '{"grant_type": "authorization_code"}'),
        ("text/plain", "grant_type=authorization_code"),
    ],
)
def test_body_must_be_form_encoded(app, issued, content_type, payload):
    oauth_error(Client().post("/oauth/token", payload, content_type=content_type), "invalid_request")


def test_multipart_body_is_refused(app, issued):
    code, verifier = issued
    # The very fields of a good exchange, sent as multipart instead of form-encoded.
    response = Client().post("/oauth/token", exchange_fields(app, code, verifier))
    oauth_error(response, "invalid_request")


@pytest.mark.parametrize("grant_type", ["password", "client_credentials", "implicit", "urn:x", "token"])
def test_unsupported_grant_type(grant_type):
    oauth_error(post_form(Client(), "/oauth/token", {"grant_type": grant_type}), "unsupported_grant_type")


def test_get_is_not_allowed():
    response = Client().get("/oauth/token")
    assert response.status_code == 405


def test_unknown_code(app, issued):
    _, verifier = issued
    oauth_error(exchange(Client(), app, "not-a-real-code", verifier), "invalid_grant")


def test_expired_code(app, issued):
    code, verifier = issued
    Grant.objects.update(expires=timezone.now() - timedelta(seconds=1))
    oauth_error(exchange(Client(), app, code, verifier), "invalid_grant")
    assert AccessToken.objects.count() == 0


def test_code_valid_for_sixty_seconds(app, issued):
    code, verifier = issued
    grant = Grant.objects.get()
    assert (grant.expires - grant.created).total_seconds() == pytest.approx(60, abs=1)
    with mock.patch("django.utils.timezone.now", return_value=grant.created + timedelta(seconds=59)):
        assert exchange(Client(), app, code, verifier).status_code == 200


def test_code_after_sixty_seconds(app, issued):
    code, verifier = issued
    grant = Grant.objects.get()
    with mock.patch("django.utils.timezone.now", return_value=grant.created + timedelta(seconds=61)):
        oauth_error(exchange(Client(), app, code, verifier), "invalid_grant")


def test_used_code_is_invalid_grant_and_counts_as_failure(app, issued):
    code, verifier = issued
    assert exchange(Client(), app, code, verifier).status_code == 200
    body = oauth_error(exchange(Client(), app, code, verifier), "invalid_grant")
    assert "already used" in body["error_description"]
    assert AccessToken.objects.count() == 1  # nothing new
    assert Grant.objects.count() == 1  # kept, for reuse detection
    # Counted once: the next failure with this code is its second.
    assert ratelimit_count(key=failure_key(digest(code)), window_seconds=FAILED_EXCHANGE_WINDOW) == 2


def test_code_issued_to_another_client(app, issued):
    code, verifier = issued
    other = make_client()
    oauth_error(exchange(Client(), other, code, verifier), "invalid_grant")
    oauth_error(exchange(Client(), app, code, verifier, client_id="dcr_nobody"), "invalid_grant")
    assert AccessToken.objects.count() == 0


def test_disabled_client_cannot_exchange(app, issued):
    code, verifier = issued
    app.disabled_at = timezone.now()
    app.save()
    oauth_error(exchange(Client(), app, code, verifier), "invalid_grant")


def test_redirect_uri_mismatch(app, issued):
    code, verifier = issued
    oauth_error(exchange(Client(), app, code, verifier, redirect_uri=REDIRECT + "x"), "invalid_grant")
    oauth_error(exchange(Client(), app, code, verifier, redirect_uri="http://127.0.0.1/callback"), "invalid_grant")


def test_resource_mismatch(app, issued):
    code, verifier = issued
    oauth_error(exchange(Client(), app, code, verifier, resource=MCP), "invalid_grant")
    oauth_error(exchange(Client(), app, code, verifier, resource="http://testserver/other"), "invalid_grant")
    assert AccessToken.objects.count() == 0


def test_repeated_resource_is_invalid_request(app, issued):
    code, verifier = issued
    oauth_error(exchange(Client(), app, code, verifier, resource=[V1, V1]), "invalid_request")


def test_pkce_verifier_mismatch(app, issued):
    code, _ = issued
    wrong, _ = pkce()
    oauth_error(exchange(Client(), app, code, wrong), "invalid_grant")
    assert AccessToken.objects.count() == 0


def test_three_failures_with_one_code_revoke_it_and_its_family(app, issued):
    code, verifier = issued
    wrong, _ = pkce()
    for _ in range(3):
        oauth_error(exchange(Client(), app, code, wrong), "invalid_grant")
    assert Grant.objects.get().used_at is not None
    oauth_error(exchange(Client(), app, code, verifier), "invalid_grant")  # the right verifier is too late


def test_two_failures_do_not_revoke(app, issued):
    code, verifier = issued
    wrong, _ = pkce()
    for _ in range(2):
        oauth_error(exchange(Client(), app, code, wrong), "invalid_grant")
    assert exchange(Client(), app, code, verifier).status_code == 200


def test_reused_code_three_times_revokes_the_tokens_it_issued(app, issued):
    code, verifier = issued
    body = exchange(Client(), app, code, verifier).json()
    for _ in range(3):
        oauth_error(exchange(Client(), app, code, verifier), "invalid_grant")
    assert AccessToken.objects.count() == 0
    assert RefreshToken.objects.get().revoked is not None
    oauth_error(refresh(Client(), app, body["refresh_token"]), "invalid_grant")


def test_server_error_is_oauth_shaped(app, issued):
    code, verifier = issued
    with mock.patch("apps.oauth.token.issuing.tokens_issue", side_effect=RuntimeError("boom")):
        body = oauth_error(exchange(Client(), app, code, verifier), "server_error", status=500)
    assert "boom" not in body.get("error_description", "")
    assert AccessToken.objects.count() == 0
    assert Grant.objects.get().used_at is None  # rolled back, nothing half-written


# -- refresh_token ------------------------------------------------------------


@pytest.fixture
def tokens(user, app):
    return tokens_for(user, app, scope="rates:read calls:read contacts:read")


def test_refresh_rotates(app, tokens):
    response = refresh(Client(), app, tokens["refresh_token"])
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    assert set(body) == {"access_token", "token_type", "expires_in", "refresh_token", "scope"}
    assert body["refresh_token"] != tokens["refresh_token"] and body["refresh_token"].startswith("srt_")
    assert body["access_token"] != tokens["access_token"]
    assert body["scope"] == "rates:read calls:read contacts:read"
    assert body["expires_in"] == 3600
    old = RefreshToken.objects.get(token_checksum=digest(tokens["refresh_token"]))
    new = RefreshToken.objects.get(token_checksum=digest(body["refresh_token"]))
    assert old.revoked is not None and new.revoked is None
    assert new.token_family == old.token_family
    assert new.family_expires == old.family_expires  # the 30-day cap is absolute
    assert new.resource == [V1]
    # the new refresh token works in turn
    assert refresh(Client(), app, body["refresh_token"]).status_code == 200


def test_rotated_token_presented_again_revokes_the_family(app, tokens):
    newer = refresh(Client(), app, tokens["refresh_token"]).json()
    body = oauth_error(refresh(Client(), app, tokens["refresh_token"]), "invalid_grant")
    assert "revoked" in body["error_description"]
    assert not RefreshToken.objects.filter(revoked__isnull=True).exists()
    assert AccessToken.objects.count() == 0
    oauth_error(refresh(Client(), app, newer["refresh_token"]), "invalid_grant")
    me = Client().get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {newer['access_token']}")
    assert me.status_code == 401


def test_rotated_token_presented_by_another_client_revokes_the_family(app, tokens):
    # docs/spec.md 3.3: a rotated token presented again revokes the whole family, whoever presents it.
    newer = refresh(Client(), app, tokens["refresh_token"]).json()
    oauth_error(refresh(Client(), make_client(), tokens["refresh_token"]), "invalid_grant")
    assert not RefreshToken.objects.filter(revoked__isnull=True).exists()
    oauth_error(refresh(Client(), app, newer["refresh_token"]), "invalid_grant")


def test_refresh_token_row_without_expiry_is_refused(app, tokens):
    RefreshToken.objects.update(expires=None)
    oauth_error(refresh(Client(), app, tokens["refresh_token"]), "invalid_grant")


@pytest.mark.parametrize("field", ["refresh_token", "client_id", "grant_type"])
def test_refresh_missing_field(app, tokens, field):
    oauth_error(refresh(Client(), app, tokens["refresh_token"], **{field: None}), "invalid_request")
    assert RefreshToken.objects.get().revoked is None


def test_refresh_unknown_token(app, tokens):
    oauth_error(refresh(Client(), app, "srt_" + "x" * 43), "invalid_grant")


def test_refresh_with_another_client(app, tokens):
    other = make_client()
    oauth_error(refresh(Client(), other, tokens["refresh_token"]), "invalid_grant")
    assert RefreshToken.objects.get().revoked is None


def test_refresh_with_an_unknown_client_id(app, tokens):
    oauth_error(refresh(Client(), app, tokens["refresh_token"], client_id="dcr_nobody"), "invalid_grant")
    assert RefreshToken.objects.get().revoked is None


@pytest.mark.parametrize("odd", ["dcr_\u2028x", "dcr_\u200bx", "\u00a0"])
def test_unprintable_client_id_is_an_unknown_client_for_both_grants(app, issued, tokens, odd):
    # Not control characters (those are invalid_request), but no client id has them either.
    code, verifier = issued
    oauth_error(exchange(Client(), app, code, verifier, client_id=odd), "invalid_grant")
    oauth_error(refresh(Client(), app, tokens["refresh_token"], client_id=odd), "invalid_grant")
    assert exchange(Client(), app, code, verifier).status_code == 200


def test_refresh_of_disabled_client(app, tokens):
    app.disabled_at = timezone.now()
    app.save()
    oauth_error(refresh(Client(), app, tokens["refresh_token"]), "invalid_grant")


def test_rotated_token_presented_while_the_client_is_disabled_revokes_the_family(app, tokens):
    # Reuse detection comes before the client check: disabling a client must not hide a theft.
    from apps.oauth.registration.services import client_disable, client_enable

    newer = refresh(Client(), app, tokens["refresh_token"]).json()
    client_disable(client=app)
    body = oauth_error(refresh(Client(), app, tokens["refresh_token"]), "invalid_grant")
    assert "revoked" in body["error_description"]
    assert not RefreshToken.objects.filter(revoked__isnull=True).exists()
    assert AccessToken.objects.count() == 0
    client_enable(client=app)
    oauth_error(refresh(Client(), app, newer["refresh_token"]), "invalid_grant")


def test_refresh_narrows_scope(app, tokens):
    body = refresh(Client(), app, tokens["refresh_token"], scope="rates:read").json()
    assert body["scope"] == "rates:read"
    assert AccessToken.objects.get(token_checksum=digest(body["access_token"])).scope == "rates:read"


def test_narrowing_is_not_permanent(app, tokens):
    narrowed = refresh(Client(), app, tokens["refresh_token"], scope="rates:read").json()
    widened_again = refresh(Client(), app, narrowed["refresh_token"], scope="rates:read calls:read")
    assert widened_again.status_code == 200
    assert widened_again.json()["scope"] == "rates:read calls:read"
    full = refresh(Client(), app, widened_again.json()["refresh_token"]).json()
    assert full["scope"] == "rates:read calls:read contacts:read"


@pytest.mark.parametrize("scope", ["calls:place", "rates:read calls:place", "unknown:scope"])
def test_refresh_cannot_widen(app, tokens, scope):
    oauth_error(refresh(Client(), app, tokens["refresh_token"], scope=scope), "invalid_scope")
    assert RefreshToken.objects.get().revoked is None  # not consumed


def test_refresh_resource_must_match_when_given(app, tokens):
    oauth_error(refresh(Client(), app, tokens["refresh_token"], resource=MCP), "invalid_grant")
    assert refresh(Client(), app, tokens["refresh_token"], resource=V1).status_code == 200


def test_refresh_idle_for_fourteen_days_expires(app, tokens):
    RefreshToken.objects.update(expires=timezone.now() - timedelta(seconds=1))
    oauth_error(refresh(Client(), app, tokens["refresh_token"]), "invalid_grant")


def test_refresh_within_fourteen_days_of_use(app, tokens):
    row = RefreshToken.objects.get()
    later = row.created + timedelta(days=13, hours=23)
    with mock.patch("django.utils.timezone.now", return_value=later):
        response = refresh(Client(), app, tokens["refresh_token"])
    assert response.status_code == 200
    new = RefreshToken.objects.get(token_checksum=digest(response.json()["refresh_token"]))
    assert new.expires == later + timedelta(days=14)  # the idle window restarts at each use


def test_refresh_capped_at_thirty_days_even_when_used(app, tokens):
    current = tokens["refresh_token"]
    start = RefreshToken.objects.get().created
    for day in (10, 20, 29):
        with mock.patch("django.utils.timezone.now", return_value=start + timedelta(days=day)):
            response = refresh(Client(), app, current)
        assert response.status_code == 200, response.content
        current = response.json()["refresh_token"]
    with mock.patch("django.utils.timezone.now", return_value=start + timedelta(days=30, seconds=1)):
        oauth_error(refresh(Client(), app, current), "invalid_grant")


def test_refresh_of_inactive_user(app, tokens, user):
    user.is_active = False
    user.save()
    oauth_error(refresh(Client(), app, tokens["refresh_token"]), "invalid_grant")


def test_three_failures_with_one_refresh_token_revoke_it_and_the_family(app, tokens):
    other = make_client()
    for _ in range(3):
        oauth_error(refresh(Client(), other, tokens["refresh_token"]), "invalid_grant")
    assert RefreshToken.objects.get().revoked is not None
    assert AccessToken.objects.count() == 0
    oauth_error(refresh(Client(), app, tokens["refresh_token"]), "invalid_grant")


def test_failure_count_is_per_credential_and_hourly(app, user, tokens):
    other = make_client()
    for _ in range(2):
        oauth_error(refresh(Client(), other, tokens["refresh_token"]), "invalid_grant")
    clear_budgets()  # the hour passed
    oauth_error(refresh(Client(), other, tokens["refresh_token"]), "invalid_grant")
    assert RefreshToken.objects.get().revoked is None


def test_access_token_refused_as_refresh_token(app, tokens):
    oauth_error(refresh(Client(), app, tokens["access_token"]), "invalid_grant")


def test_database_outage_is_temporarily_unavailable(app, issued):
    from django.db import OperationalError

    code, verifier = issued
    with mock.patch("apps.oauth.token.issuing.tokens_issue", side_effect=OperationalError("gone")):
        response = exchange(Client(), app, code, verifier)
    body = oauth_error(response, "temporarily_unavailable", status=503)
    assert "gone" not in body.get("error_description", "")
    assert response["Retry-After"] == "5"


def test_refresh_is_audited_as_the_client(app, tokens, user):
    from apps.audit.models import AuditEvent, EventType

    response = refresh(Client(REMOTE_ADDR="198.51.100.20"), app, tokens["refresh_token"])
    assert response.status_code == 200
    (event,) = AuditEvent.objects.filter(event_type=EventType.OAUTH_TOKEN_REFRESHED)
    assert event.user == user
    assert (event.actor_type, event.actor_id) == ("client", app.client_id)
    assert event.client_id == app.client_id
    assert event.request_id == response["Request-Id"]
    newer = response.json()["refresh_token"]
    oauth_error(refresh(Client(), app, newer, scope="webhooks:manage"), "invalid_scope")
    assert AuditEvent.objects.filter(event_type=EventType.OAUTH_TOKEN_REFRESHED).count() == 1


@pytest.mark.parametrize("bad", ["a\x00b", "\x01", "x\x7f"])
def test_control_characters_are_invalid_request(app, issued, bad):
    code, verifier = issued
    oauth_error(exchange(Client(), app, code, verifier, client_id=bad), "invalid_request")
    assert exchange(Client(), app, code, verifier).status_code == 200
