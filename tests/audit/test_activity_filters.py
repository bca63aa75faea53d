"""Activity: cursor pages that rows written meanwhile never shift, filters by app and by
kind, and a run of one app's refreshes shown as one entry."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.audit.models import EventType
from apps.audit.services import actor_client, audit_record
from apps.audit.views import PAGE_SIZE
from tests.support.activity import record_refreshes
from tests.support.oauth import make_client, signed_in

pytestmark = pytest.mark.django_db


def ids(response) -> list[str]:
    return [row.event.pk for row in response.context["rows"]]


def make_events(user, count, **fields):
    now = timezone.now()
    fields.setdefault("event_type", EventType.API_KEY_CREATED)
    return [audit_record(user=user, at=now - timedelta(minutes=n), **fields).pk for n in range(count)]


def test_pages_go_older_and_back_newer(user):
    made = make_events(user, PAGE_SIZE * 2 + 3)
    browser = signed_in(user)
    first = browser.get("/settings/activity")
    assert ids(first) == made[:PAGE_SIZE]
    assert first.context["newer_url"] == ""
    second = browser.get("/settings/activity" + first.context["older_url"])
    assert ids(second) == made[PAGE_SIZE : PAGE_SIZE * 2]
    third = browser.get("/settings/activity" + second.context["older_url"])
    assert ids(third) == made[PAGE_SIZE * 2 :]
    assert third.context["older_url"] == ""
    back = browser.get("/settings/activity" + third.context["newer_url"])
    assert ids(back) == made[PAGE_SIZE : PAGE_SIZE * 2]
    assert browser.get("/settings/activity" + back.context["newer_url"]).context["newer_url"] == ""


def test_a_new_event_does_not_shift_the_next_page(user):
    made = make_events(user, PAGE_SIZE + 5)
    browser = signed_in(user)
    first = browser.get("/settings/activity")
    audit_record(event_type=EventType.API_KEY_REVOKED, user=user)  # arrives while the user reads
    assert ids(browser.get("/settings/activity" + first.context["older_url"])) == made[PAGE_SIZE:]


def test_rows_of_equal_time_are_each_shown_once(user):
    now = timezone.now()
    made = [audit_record(event_type=EventType.API_KEY_CREATED, user=user, at=now).pk for _ in range(PAGE_SIZE + 2)]
    browser = signed_in(user)
    first = browser.get("/settings/activity")
    second = browser.get("/settings/activity" + first.context["older_url"])
    assert sorted(ids(first) + ids(second)) == sorted(made)


def test_a_cursor_of_another_account_is_ignored(user):
    from tests.support.factories import UserFactory

    theirs = make_events(UserFactory(), 1)[0]
    mine = make_events(user, 2)
    assert ids(signed_in(user).get("/settings/activity", {"after": theirs})) == mine


def test_filter_by_app(user):
    pocket, other = make_client(name="Pocket Assistant"), make_client(name="Other")
    audit_record(event_type=EventType.OAUTH_CONNECTION_CREATED, user=user, client_id=pocket.client_id)
    audit_record(event_type=EventType.OAUTH_CONNECTION_CREATED, user=user, client_id=other.client_id)
    audit_record(event_type=EventType.API_KEY_CREATED, user=user)
    response = signed_in(user).get("/settings/activity", {"app": pocket.client_id})
    assert [row.event.client_id for row in response.context["rows"]] == [pocket.client_id]
    html = response.content.decode()
    assert f'<option value="{pocket.client_id}" selected>Pocket Assistant</option>' in html
    assert f'<option value="{other.client_id}">Other</option>' in html


def test_filter_by_kind(user):
    audit_record(event_type=EventType.SIGNED_IN, user=user)
    audit_record(event_type=EventType.SIGN_IN_FAILED, user=user)
    audit_record(event_type=EventType.API_KEY_CREATED, user=user)
    audit_record(event_type=EventType.CALL_PLACED, user=user, client_id="dcr_x", data={"summary": "placed a call"})
    browser = signed_in(user)

    def kinds(kind):
        return {row.event.event_type for row in browser.get("/settings/activity", {"kind": kind}).context["rows"]}

    assert kinds("sign_ins") == {EventType.SIGNED_IN, EventType.SIGN_IN_FAILED}
    assert kinds("keys") == {EventType.API_KEY_CREATED}
    assert kinds("sensitive") == {EventType.CALL_PLACED}
    assert len(kinds("no-such-kind")) == 4  # an unknown kind is no filter


def test_filters_are_kept_across_pages(user):
    made = make_events(user, PAGE_SIZE + 1, event_type=EventType.SIGNED_IN)
    make_events(user, 3)
    browser = signed_in(user)
    first = browser.get("/settings/activity", {"kind": "sign_ins"})
    assert "kind=sign_ins" in first.context["older_url"]
    assert ids(browser.get("/settings/activity" + first.context["older_url"])) == made[PAGE_SIZE:]


def test_nothing_matching_says_so(user):
    make_events(user, 1)
    html = signed_in(user).get("/settings/activity", {"kind": "sign_ins"}).content.decode()
    assert "Nothing matches these filters." in html


def test_a_run_of_one_apps_refreshes_is_one_row(user):
    app = make_client(name="Pocket Assistant")
    now = timezone.now()
    record_refreshes(user, app.client_id, 4, latest=now)
    audit_record(
        event_type=EventType.OAUTH_CONNECTION_CREATED, user=user, client_id=app.client_id, at=now - timedelta(hours=1)
    )
    response = signed_in(user).get("/settings/activity")
    rows = response.context["rows"]
    assert [(row.event.event_type, row.times) for row in rows] == [
        (EventType.OAUTH_TOKEN_REFRESHED, 4),
        (EventType.OAUTH_CONNECTION_CREATED, 1),
    ]
    assert rows[0].since == now - timedelta(minutes=3)
    assert "4 times since" in response.content.decode()


def test_a_sensitive_action_reads_as_its_sentence(user):
    audit_record(
        event_type=EventType.MESSAGES_READ,
        user=user,
        actor=actor_client("dcr_x"),
        client_id="dcr_x",
        data={"summary": "read 2 messages of +44 20 7183 8750"},
    )
    html = signed_in(user).get("/settings/activity").content.decode()
    assert "Read messages" in html and "Read 2 messages of +44 20 7183 8750" in html
