"""What the consent page offers ticked: a scope the app does not hold yet starts unticked
when it is sensitive or webhooks:manage, everything else ticked; an app already connected
sees what is new first, marked new. Only the defaults: a decision without ``scopes``
still grants what was asked."""

import pytest
from django.utils import timezone

from apps.credentials.scopes import ALL_SCOPES
from apps.oauth.models import Grant
from tests.support.oauth import MCP, V1, decide, issue, make_client, pkce, start

pytestmark = pytest.mark.django_db

UNTICKED = {"calls:place", "messages:read", "messages:history", "transcripts:read", "webhooks:manage"}


@pytest.fixture
def app():
    return make_client(name="Pocket Assistant", registration_source="dcr")


def offers(browser, txn_id) -> list[dict]:
    return browser.get(f"/api/oauth/transactions/{txn_id}").json()["scopes"]


def test_a_first_connection_asking_for_everything_ticks_only_what_is_not_sensitive(browser, app):
    txn_id = start(browser, app, pkce()[1], scope=" ".join(ALL_SCOPES), resource=MCP)
    scopes = offers(browser, txn_id)
    assert [s["scope"] for s in scopes] == list(ALL_SCOPES)  # the request's order
    assert {s["scope"] for s in scopes if not s["ticked"]} == UNTICKED
    assert not any(s["new"] or s["held"] for s in scopes)
    assert browser.get(f"/api/oauth/transactions/{txn_id}").json()["step_up"] is False


def test_the_page_renders_those_defaults(browser, app):
    txn_id = start(browser, app, pkce()[1], scope=" ".join(ALL_SCOPES), resource=MCP)
    html = browser.get(f"/oauth/consent?transaction={txn_id}").content.decode()
    for scope in ALL_SCOPES:
        ticked = f'name="scopes" value="{scope}" checked' in html
        assert ticked is (scope not in UNTICKED), scope


def test_a_decision_without_scopes_still_grants_what_was_asked(browser, app):
    txn_id = start(browser, app, pkce()[1], scope="rates:read calls:place webhooks:manage")
    assert decide(browser, txn_id, "allow", confirm_sensitive=True).status_code == 200
    assert Grant.objects.get().scope == "rates:read calls:place webhooks:manage"


def test_a_step_up_lists_the_new_scopes_first_marked_new(browser, app, user):
    issue(user, app, resource=MCP, scope="rates:read calls:read")
    txn_id = start(browser, app, pkce()[1], scope="rates:read calls:read credits:read calls:place", resource=MCP)
    body = browser.get(f"/api/oauth/transactions/{txn_id}").json()
    assert body["step_up"] is True
    assert [(s["scope"], s["new"], s["held"], s["ticked"]) for s in body["scopes"]] == [
        ("credits:read", True, False, True),
        ("calls:place", True, False, False),  # new and sensitive: still asked for by a tick
        ("rates:read", False, True, True),
        ("calls:read", False, True, True),
    ]
    html = browser.get(f"/oauth/consent?transaction={txn_id}").content.decode()
    assert "asks for more access" in html
    assert html.index('value="credits:read"') < html.index('value="rates:read"')


def test_a_held_sensitive_scope_stays_ticked(browser, app, user):
    issue(user, app, resource=MCP, scope="rates:read messages:read")
    txn_id = start(browser, app, pkce()[1], scope="rates:read messages:read credits:read", resource=MCP)
    assert {s["scope"]: s["ticked"] for s in offers(browser, txn_id)} == {
        "credits:read": True,
        "rates:read": True,
        "messages:read": True,
    }


def test_what_is_held_for_another_resource_is_not_held_here(browser, app, user):
    issue(user, app, resource=V1, scope="rates:read calls:read")
    txn_id = start(browser, app, pkce()[1], scope="rates:read calls:read credits:read", resource=MCP)
    body = browser.get(f"/api/oauth/transactions/{txn_id}").json()
    assert body["step_up"] is False
    assert not any(s["held"] or s["new"] for s in body["scopes"])


def test_a_disconnected_app_holds_nothing(browser, app, user):
    from apps.oauth.connections.services import connection_revoke

    issue(user, app, resource=MCP, scope="rates:read")
    connection_revoke(user=user, client_id=app.client_id)
    txn_id = start(browser, app, pkce()[1], scope="rates:read credits:read", resource=MCP)
    assert browser.get(f"/api/oauth/transactions/{txn_id}").json()["step_up"] is False


def test_asking_for_less_than_held_is_no_step_up_but_marks_what_is_new(browser, app, user):
    issue(user, app, resource=MCP, scope="rates:read calls:read", now=timezone.now())
    txn_id = start(browser, app, pkce()[1], scope="rates:read credits:read", resource=MCP)
    body = browser.get(f"/api/oauth/transactions/{txn_id}").json()
    assert body["step_up"] is False
    assert [(s["scope"], s["new"]) for s in body["scopes"]] == [("credits:read", True), ("rates:read", False)]


def test_another_users_grant_is_not_held(browser, app):
    from tests.support.factories import UserFactory

    issue(UserFactory(), app, resource=MCP, scope="rates:read")
    txn_id = start(browser, app, pkce()[1], scope="rates:read credits:read", resource=MCP)
    assert not any(s["held"] for s in offers(browser, txn_id))
