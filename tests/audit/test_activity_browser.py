"""Activity and Connected apps in Debian's Chromium at a phone's width and a laptop's:
paging back and forth by cursor, filtering by app and by kind, a sensitive action's
sentence, and one connected app's entry taking less than half a phone screen."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.audit.models import EventType
from apps.audit.services import audit_record, audit_sensitive_action
from apps.audit.views import PAGE_SIZE
from apps.credentials.principal import Principal
from apps.credentials.scopes import ALL_SCOPES
from tests.browser import by_width, signed_in_page
from tests.browser_pages import assert_fits
from tests.support.activity import record_refreshes
from tests.support.factories import UserFactory
from tests.support.oauth import issue, make_client

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def account_with_history(service):
    """An account whose log holds more than a page: key events, one app's refreshes and
    sensitive actions, and failed sign-ins. Made before Playwright starts."""
    user = UserFactory(email="ada@example.com")
    app = make_client(name="Pocket Assistant")
    issue(user, app, resource=f"{service}/mcp", scope=" ".join(ALL_SCOPES))
    now = timezone.now() - timedelta(minutes=5)
    for n in range(PAGE_SIZE):
        audit_record(
            event_type=EventType.API_KEY_ROTATED, user=user, key_id="key_gone", at=now - timedelta(hours=n + 1)
        )
    record_refreshes(user, app.client_id, 3, latest=now)
    principal = Principal(kind="oauth", user=user, credential_id=app.client_id, client_id=app.client_id)
    for n in range(3):
        audit_sensitive_action(
            principal=principal,
            event_type=EventType.MESSAGES_READ,
            summary=f"read {n + 1} messages of +44 20 7183 8750",
        )
    audit_record(event_type=EventType.SIGN_IN_FAILED, user=user, at=now - timedelta(days=30))
    return user, app


def row_types(page) -> list[str]:
    return page.eval_on_selector_all("#activity tbody tr", "rows => rows.map(r => r.dataset.eventType)")


@by_width
def test_activity_pages_and_filters(service, width):
    user, app = account_with_history(service)
    with signed_in_page(service, user.email, width) as page:
        page.goto(f"{service}/settings/activity")
        first = row_types(page)
        assert first[0] == EventType.SIGNED_IN  # this very sign-in
        assert "Read 3 messages of +44 20 7183 8750" in page.inner_text("#activity")
        refreshes = page.locator("#activity tr[data-event-type='oauth.token.refreshed']")
        assert refreshes.count() == 1 and refreshes.get_attribute("data-times") == "3"
        assert page.locator("#newer").count() == 0
        assert_fits(page, "activity, first page")

        page.click("#older")
        page.wait_for_url(f"{service}/settings/activity?after=evt_*")
        older = row_types(page)
        assert older[-1] == EventType.SIGN_IN_FAILED
        assert page.locator("#older").count() == 0
        assert_fits(page, "activity, older page")
        page.click("#newer")
        page.wait_for_url(f"{service}/settings/activity?before=evt_*")
        assert row_types(page) == first

        page.select_option("#filter-app", app.client_id)
        page.click("#apply-filters")
        page.wait_for_url(f"{service}/settings/activity?app=*")
        subjects = page.eval_on_selector_all(
            "#activity [data-subject-id]", "cells => [...new Set(cells.map(c => c.dataset.subjectId))]"
        )
        assert subjects == [app.client_id]
        assert set(row_types(page)) == {EventType.MESSAGES_READ, EventType.OAUTH_TOKEN_REFRESHED}

        page.select_option("#filter-app", "")
        page.select_option("#filter-kind", "sign_ins")
        page.click("#apply-filters")
        page.wait_for_url(f"{service}/settings/activity?*kind=sign_ins")
        assert row_types(page) == [EventType.SIGNED_IN, EventType.SIGN_IN_FAILED]
        assert "Someone" in page.inner_text("#activity")
        assert_fits(page, "activity, filtered")
        page.click("#clear-filters")
        page.wait_for_url(f"{service}/settings/activity")


@by_width
def test_one_connected_app_is_compact(service, width):
    user, app = account_with_history(service)
    with signed_in_page(service, user.email, width) as page:
        page.goto(f"{service}/settings/connected-apps")
        entry = page.locator(f"tr[data-client-id='{app.client_id}']")
        # All ten scopes and three recent actions, in less than half a phone screen.
        assert entry.bounding_box()["height"] < 400, entry.bounding_box()
        text = entry.inner_text()
        assert "10 permissions, 4 sensitive" in text
        assert "Read 3 messages of +44 20 7183 8750" in text
        assert_fits(page, "connected apps")
        entry.locator("summary").click()
        assert entry.locator("li[data-scope='calls:place']").is_visible()
        assert_fits(page, "connected apps, permissions open")
        entry.locator("a.app-activity").click()
        page.wait_for_url(f"{service}/settings/activity?app=*")
        assert page.eval_on_selector("#filter-app", "s => s.value") == app.client_id
