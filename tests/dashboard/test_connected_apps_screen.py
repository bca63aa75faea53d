"""The Connected apps screen at /settings/connected-apps (docs/spec.md 5.12)."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from apps.audit.models import AuditEvent
from apps.core.templatetags.when import when
from apps.oauth.models import Application
from tests.support.oauth import issue, make_client, me, signed_in

pytestmark = pytest.mark.django_db
PAGE = "/settings/connected-apps"


def test_screen_needs_sign_in():
    response = Client().get(PAGE)
    assert response.status_code == 302
    assert response["Location"].startswith("/login")


def test_screen_lists_each_app_with_its_details(user):
    app = make_client(name="Example Assistant", redirect_uris="https://assistant.example.org/cb")
    partner = make_client(name="Partner", verified_partner=True)
    first = timezone.now() - timedelta(days=2)
    issue(user, app, scope="rates:read calls:place", now=first)
    issue(user, partner)

    response = signed_in(user).get(PAGE)

    assert response.status_code == 200
    html = response.content.decode()
    assert "Example Assistant" in html
    assert "self-registered" in html
    assert "verified partner" in html
    assert "assistant.example.org" in html
    assert "See what calls cost per minute to a number or a country, from the published price list." in html
    assert "Place calls from your account, which spends your credit." in html
    assert "(sensitive)" in html
    assert when(first) in html
    assert html.count(">Disconnect</button>") == 2
    assert f'value="{app.client_id}"' in html


def test_screen_without_apps(user):
    assert "No apps are connected" in signed_in(user).get(PAGE).content.decode()


def test_disconnect_button_takes_effect_at_once(user):
    app, kept = make_client(name="Gone"), make_client(name="Kept")
    tokens, kept_tokens = issue(user, app), issue(user, kept)
    browser = signed_in(user)

    response = browser.post(f"{PAGE}/disconnect", {"client_id": app.client_id}, follow=True)

    assert response.status_code == 200
    html = response.content.decode()
    assert "Disconnected Gone." in html
    assert f'value="{app.client_id}"' not in html
    assert f'value="{kept.client_id}"' in html
    assert me(tokens["access_token"]).status_code == 401
    assert me(kept_tokens["access_token"]).status_code == 200
    assert AuditEvent.objects.count() == 1


def test_disconnect_button_for_an_app_not_connected(user):
    app = make_client()
    response = signed_in(user).post(f"{PAGE}/disconnect", {"client_id": app.client_id}, follow=True)
    assert "No such connected app." in response.content.decode()
    assert not AuditEvent.objects.exists()


def test_disconnect_button_is_csrf_protected(user):
    app = make_client()
    tokens = issue(user, app)
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    assert browser.post(f"{PAGE}/disconnect", {"client_id": app.client_id}).status_code == 403
    assert me(tokens["access_token"]).status_code == 200


def test_disabled_app_is_shown_and_can_be_disconnected(user):
    app = make_client(name="Disabled one")
    issue(user, app)
    Application.objects.filter(pk=app.pk).update(disabled_at=timezone.now())
    browser = signed_in(user)
    assert "disabled by the service" in browser.get(PAGE).content.decode()
    (entry,) = browser.get("/api/oauth/connections").json()["data"]
    assert entry["disabled"] is True
    assert browser.delete(f"/api/oauth/connections/{app.client_id}").status_code == 200
