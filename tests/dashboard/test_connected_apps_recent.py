"""Each connected app's entry shows its latest sensitive actions (the audit log's), newest
first, and links to all of its activity."""

import pytest

from apps.audit.models import EventType
from apps.audit.services import audit_sensitive_action
from apps.credentials.principal import Principal
from apps.dashboard.connected_apps_views import RECENT_ON_PAGE
from tests.support.factories import UserFactory
from tests.support.oauth import issue, make_client, signed_in

pytestmark = pytest.mark.django_db

PAGE = "/settings/connected-apps"


def act(user, app, summary, event_type=EventType.MESSAGES_READ):
    principal = Principal(kind="oauth", user=user, credential_id=app.client_id, client_id=app.client_id)
    return audit_sensitive_action(principal=principal, event_type=event_type, summary=summary)


def entry(html: str, client_id: str) -> str:
    start = html.index(f'data-client-id="{client_id}"')
    return html[start : html.index("</tr>", start)]


def test_an_apps_entry_lists_its_latest_sensitive_actions(user):
    app, other = make_client(name="Pocket Assistant"), make_client(name="Other")
    issue(user, app, scope="rates:read messages:read calls:place")
    issue(user, other)
    for n in range(RECENT_ON_PAGE + 1):
        act(user, app, f"read {n + 1} messages of +44 20 7183 8750")
    act(user, other, "placed a call to +49 151 ...", EventType.CALL_PLACED)
    act(UserFactory(), app, "read 9 messages of someone else's number")

    html = signed_in(user).get(PAGE).content.decode()
    mine = entry(html, app.client_id)

    shown = [f"Read {n} messages of +44 20 7183 8750" for n in range(RECENT_ON_PAGE + 1, 1, -1)]
    positions = [mine.index(line) for line in shown]
    assert positions == sorted(positions)  # newest first
    assert "Read 1 messages" not in mine  # only the latest few
    assert "placed a call" not in mine.lower() and "someone else" not in mine
    assert f'href="/settings/activity?app={app.client_id}"' in mine
    assert "Placed a call to +49 151 ..." in entry(html, other.client_id)


def test_an_app_that_did_nothing_sensitive_says_none(user):
    app = make_client()
    issue(user, app)
    assert ">None<" in entry(signed_in(user).get(PAGE).content.decode(), app.client_id)


def test_scopes_fold_into_a_count_with_the_sensitive_ones_named(user):
    app = make_client()
    issue(user, app, scope="rates:read calls:place messages:read")
    mine = entry(signed_in(user).get(PAGE).content.decode(), app.client_id)
    assert "3 permissions" in mine and "2 sensitive" in mine
    assert "<details>" in mine and "Place calls from your account" in mine


def test_the_page_costs_one_query_more_per_app(user, django_assert_max_num_queries):
    apps = [make_client(name=f"App {n}") for n in range(4)]
    for app in apps:
        issue(user, app)
        act(user, app, "ended a call", EventType.CALL_ENDED)
    browser = signed_in(user)
    browser.get(PAGE)
    # session, user, connections (3), every app's webhook endpoints (1), one per app for its recent actions
    with django_assert_max_num_queries(6 + len(apps)):
        browser.get(PAGE)
