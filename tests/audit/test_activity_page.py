"""The user's own log at /settings/activity, newest first, and the read-only admin."""

from datetime import timedelta

import pytest
from django.contrib.admin.utils import quote
from django.test import Client
from django.utils import timezone

from apps.audit.models import AuditEvent, EventType
from apps.audit.selectors import audit_list_for_user
from apps.audit.services import actor_client, audit_record
from tests.factories import UserFactory
from tests.oauth.helpers import signed_in

pytestmark = pytest.mark.django_db


def test_selector_lists_only_the_users_entries_newest_first(user):
    now = timezone.now()
    old = audit_record(event_type=EventType.API_KEY_CREATED, user=user, key_id="key_old", at=now - timedelta(days=2))
    new = audit_record(event_type=EventType.API_KEY_REVOKED, user=user, key_id="key_old", at=now)
    audit_record(event_type=EventType.API_KEY_CREATED, user=UserFactory(), at=now)
    assert list(audit_list_for_user(user=user)) == [new, old]


def test_page_needs_sign_in():
    response = Client().get("/settings/activity")
    assert response.status_code == 302
    assert response["Location"].startswith("/login")


def test_page_shows_own_entries_newest_first(user):
    now = timezone.now()
    audit_record(
        event_type=EventType.OAUTH_CONNECTION_CREATED,
        user=user,
        client_id="dcr_first",
        at=now - timedelta(hours=1),
    )
    audit_record(
        event_type=EventType.OAUTH_TOKEN_REFRESHED, user=user, actor=actor_client("dcr_first"), client_id="dcr_first"
    )
    audit_record(event_type=EventType.API_KEY_CREATED, user=UserFactory(), key_id="key_someone_else")

    response = signed_in(user).get("/settings/activity")

    assert response.status_code == 200
    html = response.content.decode()
    assert html.index("App refreshed its access") < html.index("Connected an app")
    assert "dcr_first" in html
    assert "key_someone_else" not in html
    assert "no-store" in response["Cache-Control"]


def test_page_paginates(user):
    for _ in range(55):
        audit_record(event_type=EventType.API_KEY_CREATED, user=user)
    browser = signed_in(user)
    first = browser.get("/settings/activity").content.decode()
    assert first.count('data-event-type="api_key.created"') == 50
    assert "?page=2" in first
    assert browser.get("/settings/activity?page=2").content.decode().count('data-event-type="api_key.created"') == 5


def test_admin_is_read_only(user):
    staff = UserFactory(is_staff=True, is_superuser=True)
    event = audit_record(event_type=EventType.API_KEY_CREATED, user=user)
    browser = Client()
    browser.force_login(staff)
    assert browser.get("/admin/audit/auditevent/").status_code == 200
    assert browser.get(f"/admin/audit/auditevent/{quote(event.pk)}/change/").status_code == 200
    assert browser.get("/admin/audit/auditevent/add/").status_code == 403
    assert browser.post(f"/admin/audit/auditevent/{quote(event.pk)}/delete/", {"post": "yes"}).status_code == 403
    assert AuditEvent.objects.filter(pk=event.pk).exists()


def test_page_names_the_app_when_known(user):
    audit_record(
        event_type=EventType.OAUTH_CONNECTION_REVOKED,
        user=user,
        client_id="dcr_named",
        data={"client_name": "Example <Assistant>"},
    )
    html = signed_in(user).get("/settings/activity").content.decode()
    assert "Example &lt;Assistant&gt;" in html
    assert "Disconnected an app" in html
