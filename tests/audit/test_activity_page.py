"""The user's own log at /settings/activity, newest first, and the read-only admin."""

from datetime import timedelta

import pytest
from django.contrib.admin.utils import quote
from django.test import Client
from django.utils import timezone

from apps.audit.models import AuditEvent, EventType
from apps.audit.selectors import audit_list_for_user
from apps.audit.services import actor_client, actor_user, audit_record
from apps.audit.views import PAGE_SIZE
from tests.support.factories import UserFactory, make_api_key
from tests.support.oauth import make_client, signed_in

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
    assert 'data-subject-id="dcr_first"' in html  # an app no longer registered: the id only as a tooltip
    assert "An app no longer registered" in html
    assert "key_someone_else" not in html
    assert "no-store" in response["Cache-Control"]


def test_page_paginates(user):
    for _ in range(PAGE_SIZE + 5):
        audit_record(event_type=EventType.API_KEY_CREATED, user=user)
    browser = signed_in(user)
    first = browser.get("/settings/activity")
    assert first.content.decode().count('data-event-type="api_key.created"') == PAGE_SIZE
    older = first.context["older_url"]
    assert older.startswith("?after=evt_")
    assert browser.get("/settings/activity" + older).content.decode().count('data-event-type="api_key.created"') == 5


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


def visible_text(html: str) -> str:
    """The log's text as read, without tags and attributes (tooltips keep the ids); the
    filters' list of apps is left out."""
    import re

    html = html[html.index('id="activity-filters"') :]
    html = html[html.index("</form>") :]
    return re.sub(r"<[^>]+>", " ", html)


def test_page_shows_names_of_apps_and_keys_not_their_ids(user):
    app = make_client(name="Pocket Assistant")
    key, _secret = make_api_key(user=user, name="Reporting script")
    audit_record(event_type=EventType.OAUTH_CONNECTION_CREATED, user=user, client_id=app.client_id)
    audit_record(
        event_type=EventType.OAUTH_TOKEN_REFRESHED,
        user=user,
        actor=actor_client(app.client_id),
        client_id=app.client_id,
    )
    AuditEvent.objects.filter(event_type=EventType.API_KEY_CREATED).delete()
    audit_record(event_type=EventType.API_KEY_ROTATED, user=user, key_id=key.pk)  # no name recorded: looked up

    html = signed_in(user).get("/settings/activity").content.decode()

    text = visible_text(html)
    assert text.count("Pocket Assistant") == 2
    assert "Reporting script" in text
    assert "dcr_" not in text and "key_" not in text
    assert f'data-subject-id="{key.pk}"' in html


def test_a_recorded_name_wins_over_the_current_one(user):
    app = make_client(name="New name")
    audit_record(
        event_type=EventType.OAUTH_CONNECTION_REVOKED,
        user=user,
        client_id=app.client_id,
        data={"client_name": "Old name"},
    )
    text = visible_text(signed_in(user).get("/settings/activity").content.decode())
    assert "Old name" in text and "New name" not in text


def test_another_users_key_name_is_never_shown(user):
    theirs, _secret = make_api_key(user=UserFactory(), name="Their secret project")
    audit_record(event_type=EventType.API_KEY_REVOKED, user=user, key_id=theirs.pk)
    text = visible_text(signed_in(user).get("/settings/activity").content.decode())
    assert "Their secret project" not in text
    assert "A deleted key" in text


def test_names_cost_two_queries_whatever_the_page_holds(user, django_assert_max_num_queries):
    for n in range(10):
        app = make_client(name=f"App {n}")
        key, _secret = make_api_key(user=user, name=f"Key {n}")
        audit_record(event_type=EventType.OAUTH_TOKEN_REFRESHED, user=user, client_id=app.client_id)
        audit_record(event_type=EventType.API_KEY_ROTATED, user=user, key_id=key.pk)
    AuditEvent.objects.filter(event_type=EventType.API_KEY_CREATED).delete()  # no recorded names
    browser = signed_in(user)
    browser.get("/settings/activity")  # warm the session
    # session, user, page of events, the apps of the filter, client names, key names
    with django_assert_max_num_queries(6):
        html = browser.get("/settings/activity").content.decode()
    assert "App 9" in html and "Key 9" in html


def test_who_acted_is_said_in_words(user):
    staff = UserFactory(is_staff=True)
    audit_record(event_type=EventType.PASSWORD_CHANGED, user=user, actor=actor_user(user))
    audit_record(event_type=EventType.PASSWORD_RESET, user=user, actor=actor_user(staff))
    audit_record(event_type=EventType.OAUTH_TOKEN_REFRESHED, user=user, actor=actor_client("dcr_x"), client_id="dcr_x")
    text = visible_text(signed_in(user).get("/settings/activity").content.decode())
    assert "You" in text and "Service staff" in text and "The app" in text
    assert staff.pk not in text and user.pk not in text


def test_an_event_with_a_sentence_says_it_once(user):
    from apps.audit.services import audit_sensitive_action
    from apps.credentials.principal import Principal

    app = make_client(name="Pocket Assistant")
    principal = Principal(kind="oauth", user=user, credential_id=app.client_id, client_id=app.client_id)
    audit_sensitive_action(
        principal=principal, event_type=EventType.MESSAGES_READ, summary="read 2 messages of +44 20 7183 8750"
    )
    html = signed_in(user).get("/settings/activity").content.decode()
    row = html[html.index('data-event-type="messages.read"') :]
    what = row[row.index('data-label="What"') :]
    what = what[: what.index("</td>")]
    # The sentence alone; the kind's title only as its tooltip, not a second line saying the same.
    label = EventType.MESSAGES_READ.label
    assert f'title="{label}">Read 2 messages of +44 20 7183 8750</span>' in what
    assert what.count(label) == 1


def test_another_accounts_events_are_never_listed(user):
    eve = UserFactory(email="eve@example.com")
    audit_record(event_type=EventType.API_KEY_CREATED, user=eve, key_id="key_of_eve")
    html = signed_in(user).get("/settings/activity").content.decode()
    assert "key_of_eve" not in html and 'data-event-type="api_key.created"' not in html
