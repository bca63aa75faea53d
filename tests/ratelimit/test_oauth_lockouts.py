"""OAuth lockouts of docs/spec.md 8.3 through the real token endpoint."""

import json
import logging

import pytest
from django.test import Client

from apps.ratelimit import budgets
from apps.ratelimit.budgets import Budget
from tests.support.factories import UserFactory
from tests.support.oauth import exchange, make_client, pkce, refresh, tokens_for

pytestmark = pytest.mark.django_db


def bad_exchange(client, app):
    verifier, _ = pkce()
    return exchange(client, app, "not-a-code", verifier)


def spend_the_family(client, app, token) -> str:
    """Ten refreshes in a row, the grant family's budget for a minute; the last refresh token."""
    for _ in range(10):
        response = refresh(client, app, token)
        assert response.status_code == 200, response.content
        token = response.json()["refresh_token"]
    return token


def test_ten_failed_exchanges_a_minute_back_the_source_off_for_60_seconds(client, store, django_assert_num_queries):
    app = make_client()
    for _ in range(10):
        response = bad_exchange(client, app)
        assert response.status_code == 400
        assert response.json()["error"] == "invalid_grant"
    # Answered before any grant work: not one query.
    with django_assert_num_queries(0):
        denied = bad_exchange(client, app)
    assert denied.status_code == 429
    assert denied.json()["error"] == "temporarily_unavailable"
    assert denied["Retry-After"] == "60"
    assert denied["RateLimit"] == "limit=10, remaining=0, reset=60"
    assert denied["RateLimit-Policy"] == "10;w=60"
    # A valid exchange from that source waits too; other sources do not.
    assert bad_exchange(Client(REMOTE_ADDR="198.51.100.4"), app).status_code == 400
    store.clock.advance(30)
    assert bad_exchange(client, app).status_code == 429
    store.clock.advance(30)
    assert bad_exchange(client, app).status_code == 400


def test_successful_exchanges_do_not_count_as_failures(client, store):
    app = make_client()
    user = UserFactory()
    for _ in range(11):
        tokens_for(user, app)  # each a good code exchange from the same address


def test_more_than_ten_refreshes_a_minute_for_one_family_get_429_for_that_family(store):
    app = make_client()
    user = UserFactory()
    tokens = tokens_for(user, app)
    other = tokens_for(user, app)
    client = Client()
    token = spend_the_family(client, app, tokens["refresh_token"])
    denied = refresh(client, app, token)
    assert denied.status_code == 429
    assert denied.json()["error"] == "temporarily_unavailable"
    assert denied["Retry-After"] == "6"
    assert denied["RateLimit-Policy"] == "10;w=60"
    # The refused request did no grant work: the token still rotates later.
    assert refresh(client, app, other["refresh_token"]).status_code == 200
    store.clock.advance(6)
    assert refresh(client, app, token).status_code == 200


def crossings(caplog):
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == "apps.ratelimit.alerts"]


def test_successful_exchanges_per_client_alert_once_and_never_block(client, store, monkeypatch, caplog):
    small = Budget("exchange_successes.client", burst=2, rate=2, period=60, key=budgets.CLIENT, alert_only=True)
    monkeypatch.setitem(budgets.CLASSES, "exchange_success", (small,))
    app = make_client()
    user = UserFactory()
    with caplog.at_level(logging.WARNING, logger="apps.ratelimit.alerts"):
        for _ in range(5):
            tokens_for(user, app)
    [line] = crossings(caplog)
    assert line == {
        "event": "ratelimit.ceiling_crossed",
        "budget": "exchange_successes.client",
        "dimension": "client",
        "key": app.client_id,
        "limit": 2,
        "window": 60,
    }


def test_failed_exchanges_per_client_alert_once(client, store, monkeypatch, caplog):
    small = Budget("exchange_failures.client", burst=3, rate=3, period=60, key=budgets.CLIENT, alert_only=True)
    monkeypatch.setitem(budgets.CLASSES, "exchange_failure", (budgets.EXCHANGE_FAILURES_IP, small))
    app = make_client()
    with caplog.at_level(logging.WARNING, logger="apps.ratelimit.alerts"):
        for i in range(8):
            bad_exchange(Client(REMOTE_ADDR=f"198.51.100.{i}"), app)
    assert [c["budget"] for c in crossings(caplog)] == ["exchange_failures.client"]


def test_reads_per_client_alert_never_blocks(api, store, monkeypatch, caplog, settings):
    from tests.support.mcp import install_fake_tokens

    small = Budget("reads.client", burst=2, rate=2, period=60, key=budgets.CLIENT, alert_only=True)
    monkeypatch.setitem(budgets.CLASSES, "reads", (budgets.READS_PRINCIPAL, budgets.READS_USER, small))
    fake = install_fake_tokens(settings)
    users = [UserFactory() for _ in range(3)]
    secrets = [fake.issue(u, client_id="dcr_busy", resource="http://testserver/v1") for u in users]
    with caplog.at_level(logging.WARNING, logger="apps.ratelimit.alerts"):
        for secret in secrets * 2:
            assert api.get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {secret}").status_code == 200
    [line] = crossings(caplog)
    assert line["budget"] == "reads.client"
    assert line["key"] == "dcr_busy"


def test_a_backed_off_source_is_refused_a_refresh_before_any_query(client, store, django_assert_num_queries):
    app = make_client()
    tokens = tokens_for(UserFactory(), app)
    for _ in range(10):
        assert bad_exchange(client, app).status_code == 400
    with django_assert_num_queries(0):
        denied = refresh(client, app, tokens["refresh_token"])
    assert denied.status_code == 429
    assert denied["RateLimit-Policy"] == "10;w=60"
    assert refresh(Client(REMOTE_ADDR="198.51.100.9"), app, tokens["refresh_token"]).status_code == 200


def test_a_refresh_refused_for_its_family_writes_nothing(store):
    from apps.audit.models import AuditEvent
    from apps.oauth.models import AccessToken, RefreshToken

    app = make_client()
    tokens = tokens_for(UserFactory(), app)
    client = Client()
    token = spend_the_family(client, app, tokens["refresh_token"])
    rows = (RefreshToken.objects.count(), AccessToken.objects.count(), AuditEvent.objects.count())
    denied = refresh(client, app, token)
    assert denied.status_code == 429
    assert denied["Cache-Control"] == "no-store"
    assert (RefreshToken.objects.count(), AccessToken.objects.count(), AuditEvent.objects.count()) == rows
    assert RefreshToken.objects.filter(revoked__isnull=True).count() == 1
    # Not a failed exchange either: the source is not nearer its back-off.
    assert all(bad_exchange(client, app).status_code == 400 for _ in range(10))


def test_the_family_budget_counts_only_successful_refreshes(store):
    """docs/spec.md 8.3: "successful token requests per grant family"; a failed one spends nothing of it."""
    app = make_client()
    tokens = tokens_for(UserFactory(), app)
    client = Client()
    # Two failures (a third would revoke the credential, docs/spec.md 3.3): a wrong client id, then a wider scope.
    assert refresh(client, app, tokens["refresh_token"], client_id="dcr_nobody").status_code == 400
    assert refresh(client, app, tokens["refresh_token"], scope="rates:read messages:read").status_code == 400
    token = spend_the_family(client, app, tokens["refresh_token"])
    denied = refresh(client, app, token)
    assert denied.status_code == 429
    assert denied["RateLimit-Policy"] == "10;w=60"


def test_a_revoked_token_after_a_disconnect_keeps_asking_to_reconnect_never_429(store):
    """docs/spec.md 8.3: a known-but-revoked token after a disconnect counts towards no lockout."""
    from tests.support.oauth import disconnect, signed_in

    user = UserFactory()
    app = make_client()
    tokens = tokens_for(user, app)
    assert disconnect(signed_in(user), app.client_id).status_code == 200
    client = Client()
    for _ in range(25):  # one family, far past its 10 a minute and the source's 10 failures a minute
        response = refresh(client, app, tokens["refresh_token"])
        assert response.status_code == 400, response.content
        assert response.json()["error"] == "invalid_grant"
        assert "reconnect" in response.json()["error_description"]


def test_a_reused_token_revokes_its_family_even_when_the_family_budget_is_spent(store):
    from apps.oauth.models import RefreshToken

    app = make_client()
    tokens = tokens_for(UserFactory(), app)
    client = Client()
    token = spend_the_family(client, app, tokens["refresh_token"])
    assert refresh(client, app, token).status_code == 429
    # A rotated token presented again is theft, budget or no budget: the family falls at once.
    reused = refresh(client, app, tokens["refresh_token"])
    assert reused.status_code == 400
    assert reused.json()["error"] == "invalid_grant"
    assert not RefreshToken.objects.filter(revoked__isnull=True).exists()


def test_limiter_down_at_the_family_check_is_503_and_does_no_grant_work(store, monkeypatch):
    from apps.oauth.models import RefreshToken
    from apps.ratelimit.stores.base import StoreUnavailable

    app = make_client()
    tokens = tokens_for(UserFactory(), app)
    real = store.evaluate

    def family_down(checks, **kwargs):
        if any(c.budget is budgets.GRANT_FAMILY for c in checks):
            raise StoreUnavailable("connection refused")
        return real(checks, **kwargs)

    monkeypatch.setattr(store, "evaluate", family_down)
    response = refresh(Client(), app, tokens["refresh_token"])
    assert response.status_code == 503
    assert response.json()["error"] == "temporarily_unavailable"
    assert response["Retry-After"] == "5"
    assert RefreshToken.objects.filter(revoked__isnull=True).count() == 1
    monkeypatch.setattr(store, "evaluate", real)
    assert refresh(Client(), app, tokens["refresh_token"]).status_code == 200
