"""The two sharing switches of docs/spec.md 5.13: off by default, shown, stored, audited."""

import pytest
from django.test import Client

from apps.accounts.models import SharingSettings
from apps.accounts.security import sharing_update
from apps.accounts.selectors import sharing_get
from apps.audit.models import AuditEvent, EventType
from tests.support.oauth import signed_in

pytestmark = pytest.mark.django_db


def test_both_switches_are_off_by_default(user):
    sharing = sharing_get(user=user)
    assert (sharing.call_summaries, sharing.message_reading) == (False, False)
    assert not SharingSettings.objects.exists()  # reading stores nothing


def test_page_shows_both_switches_unticked(user):
    response = signed_in(user).get("/settings/sharing")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="call_summaries"' in html
    assert 'name="message_reading"' in html
    assert "checked" not in html


def test_page_needs_sign_in():
    response = Client().get("/settings/sharing")
    assert response.status_code == 302
    assert response["Location"].startswith("/login")


def test_saving_stores_and_shows_the_switches(user):
    browser = signed_in(user)
    response = browser.post("/settings/sharing", {"call_summaries": "on"})
    assert response.status_code == 302
    stored = SharingSettings.objects.get(user=user)
    assert (stored.call_summaries, stored.message_reading) == (True, False)
    html = browser.get("/settings/sharing").content.decode()
    assert html.count("checked") == 1

    browser.post("/settings/sharing", {"message_reading": "on"})
    stored.refresh_from_db()
    assert (stored.call_summaries, stored.message_reading) == (False, True)


def test_a_change_is_audited_once_and_no_change_not_at_all(user):
    browser = signed_in(user)
    browser.post("/settings/sharing", {"call_summaries": "on", "message_reading": "on"})
    browser.post("/settings/sharing", {"call_summaries": "on", "message_reading": "on"})
    (event,) = AuditEvent.objects.all()
    assert event.event_type == EventType.SHARING_UPDATED
    assert event.data == {"call_summaries": True, "message_reading": True}
    assert (event.actor_type, event.actor_id) == ("user", user.pk)


def test_the_page_is_csrf_protected(user):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    assert browser.post("/settings/sharing", {"call_summaries": "on"}).status_code == 403
    assert not SharingSettings.objects.exists()


def test_service_refuses_non_booleans(user):
    with pytest.raises(TypeError):
        sharing_update(user=user, call_summaries="yes", message_reading=False)
    assert not SharingSettings.objects.exists()
