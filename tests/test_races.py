"""Races the per-app suites do not cover (PostgreSQL, real threads).

The per-app race tests: tests/oauth/test_races.py (one code redeemed by many,
one refresh token refreshed by many, many decisions on one transaction),
tests/apikeys/test_api_keys_race.py (the 10-key limit), tests/api_v1/
test_idempotency_race.py (one Idempotency-Key), tests/oauth/test_register_race.py
(the registration cap). Here: a disconnect racing a refresh must never leave a
token alive, since a token that outlives its revocation breaks the promise of
docs/spec.md 3.3.
"""

import pytest
from django.test import Client
from django.utils import timezone

from apps.oauth.models import AccessToken, RefreshToken
from tests.support.oauth import make_client, refresh, signed_in, tokens_for
from tests.support.races import at_once, postgresql_only

pytestmark = [pytest.mark.django_db(transaction=True), postgresql_only]
ROUNDS = 6


def test_disconnect_racing_a_refresh_leaves_no_live_token(user):
    app = make_client()
    browser = signed_in(user)
    outcomes = set()
    for _ in range(ROUNDS):
        tokens = tokens_for(user, app)
        refreshed, disconnected = at_once(
            lambda tokens=tokens: refresh(Client(), app, tokens["refresh_token"]),
            lambda: browser.delete(f"/api/oauth/connections/{app.client_id}"),
        )
        assert refreshed.status_code in (200, 400), refreshed.content
        assert disconnected.status_code in (200, 204), disconnected.content
        outcomes.add(refreshed.status_code)
        now = timezone.now()
        live_access = AccessToken.objects.filter(user=user, application=app, expires__gt=now)
        live_access = [t for t in live_access if t.is_valid()]
        assert live_access == []
        assert not RefreshToken.objects.filter(user=user, application=app, revoked__isnull=True).exists()
        if refreshed.status_code == 200:
            # The refresh that slipped in first was revoked by the disconnect that followed.
            new = refreshed.json()
            me = Client().get("/v1/me", headers={"Authorization": f"Bearer {new['access_token']}"})
            assert me.status_code == 401
            assert refresh(Client(), app, new["refresh_token"]).status_code == 400
        else:
            assert refreshed.json()["error"] == "invalid_grant"
