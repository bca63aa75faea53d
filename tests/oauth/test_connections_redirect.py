"""Connected apps show the redirect host a connection actually uses (docs/spec.md 5.12),
recorded per grant family at consent, not the first URI the client registered."""

import importlib
from datetime import timedelta

import pytest
from django.apps import apps
from django.test import Client
from django.utils import timezone

from apps.oauth.models import Grant, GrantFamily, RefreshToken
from apps.oauth.services import oauth_purge_stale
from apps.oauth.token.revocation import family_revoke
from tests.support.oauth import BASE_URL, exchange, get_code, issue, make_client, pkce, refresh, signed_in

pytestmark = pytest.mark.django_db

HARMLESS = "https://claude.ai/api/mcp/auth_callback"
ATTACKER = "https://attacker.example/cb"


def connect(user, app, redirect_uri, scope="rates:read"):
    """A real consent and code exchange with ``redirect_uri``; returns the token response."""
    verifier, challenge = pkce()
    code = get_code(signed_in(user), app, challenge, redirect_uri=redirect_uri, scope=scope)
    response = exchange(Client(), app, code, verifier, redirect_uri=redirect_uri)
    assert response.status_code == 200, response.content
    return response.json()


def listed(user) -> dict:
    (entry,) = signed_in(user).get(BASE_URL).json()["data"]
    return entry


def test_a_client_authorized_with_its_second_uri_is_listed_with_that_host(user):
    app = make_client(name="Claude", redirect_uris=f"{HARMLESS} {ATTACKER}")
    connect(user, app, ATTACKER)

    entry = listed(user)
    assert entry["redirect_host"] == "attacker.example"
    assert entry["redirect_hosts"] == ["attacker.example"]

    html = signed_in(user).get("/settings/connected-apps").content.decode()
    assert "<code>attacker.example</code>" in html
    assert "claude.ai" not in html


def test_the_host_outlives_the_code_and_follows_rotation(user):
    app = make_client(redirect_uris=f"{HARMLESS} {ATTACKER}")
    tokens = connect(user, app, ATTACKER)
    rotated = refresh(Client(), app, tokens["refresh_token"])
    assert rotated.status_code == 200, rotated.content
    Grant.objects.update(expires=timezone.now() - timedelta(days=2))
    oauth_purge_stale()
    assert not Grant.objects.exists()

    assert listed(user)["redirect_host"] == "attacker.example"


def test_two_consents_with_different_uris_list_both_hosts_newest_first(user):
    app = make_client(redirect_uris=f"{HARMLESS} {ATTACKER}")
    connect(user, app, HARMLESS)
    later = connect(user, app, ATTACKER)
    assert later["access_token"]

    entry = listed(user)
    assert entry["redirect_hosts"] == ["attacker.example", "claude.ai"]
    assert entry["redirect_host"] == "attacker.example"


def test_a_revoked_family_no_longer_lends_its_host(user):
    app = make_client(redirect_uris=f"{HARMLESS} {ATTACKER}")
    connect(user, app, ATTACKER)
    first_family = GrantFamily.objects.get().family
    connect(user, app, HARMLESS)
    family_revoke(family=first_family)
    assert listed(user)["redirect_hosts"] == ["claude.ai"]


def test_the_recorded_uri_is_the_one_of_the_consent(user):
    app = make_client(redirect_uris=f"{HARMLESS} {ATTACKER}")
    connect(user, app, ATTACKER)
    family = GrantFamily.objects.get()
    assert family.redirect_uri == ATTACKER
    assert family.user_id == user.pk and family.application_id == app.pk
    tokens = RefreshToken.objects.filter(user=user)
    assert set(tokens.values_list("token_family", flat=True)) == {family.family}


# -- families issued before the redirect URI was recorded ---------------------------


def test_an_unrecorded_family_of_a_single_host_client_shows_that_host(user):
    app = make_client(redirect_uris="https://one.example/cb https://one.example/other")
    issue(user, app)  # tokens without a consent row, as before the record existed
    assert listed(user)["redirect_host"] == "one.example"


def test_an_unrecorded_family_of_a_several_host_client_shows_none(user):
    app = make_client(redirect_uris=f"{HARMLESS} {ATTACKER}")
    issue(user, app)
    entry = listed(user)
    assert entry["redirect_host"] is None and entry["redirect_hosts"] == []
    html = signed_in(user).get("/settings/connected-apps").content.decode()
    assert "Redirect address not recorded" in html
    assert "claude.ai" not in html and "attacker.example" not in html


def test_the_migration_records_families_whose_code_is_still_kept(user):
    app = make_client(redirect_uris=f"{HARMLESS} {ATTACKER}")
    connect(user, app, ATTACKER)
    GrantFamily.objects.all().delete()

    migration = importlib.import_module("apps.oauth.migrations.0005_grantfamily")
    migration.backfill_from_codes(apps, None)
    migration.backfill_from_codes(apps, None)  # twice: nothing duplicated

    assert listed(user)["redirect_host"] == "attacker.example"
    assert GrantFamily.objects.count() == 1
