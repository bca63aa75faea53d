"""The email the account owner gets after Allow (docs/spec.md 5, rule 11): a new app is
announced as new; an app already connected that was given more access is never called a
new app, and the email names what it was given on top."""

import pytest
from django.core import mail

from apps.credentials.scopes import SCOPES
from tests.support.oauth import MCP, V1, decide, issue, make_client, pkce, start

pytestmark = pytest.mark.django_db


@pytest.fixture
def app():
    return make_client(name="Pocket Assistant", registration_source="dcr")


@pytest.fixture
def allow(browser, app, django_capture_on_commit_callbacks):
    def allow(scope: str, resource: str = MCP, **decision):
        txn_id = start(browser, app, pkce()[1], scope=scope, resource=resource)
        with django_capture_on_commit_callbacks(execute=True):
            assert decide(browser, txn_id, "allow", **decision).status_code == 200
        (message,) = mail.outbox
        mail.outbox.clear()
        return message

    return allow


def sentence(scope: str) -> str:
    return SCOPES[scope].sentence


def test_a_first_connection_is_a_new_app(allow, user):
    message = allow("rates:read calls:read")
    assert message.subject == "New app connected to your account: Pocket Assistant"
    assert message.to == [user.email]
    assert sentence("rates:read") in message.body and sentence("calls:read") in message.body


def test_a_step_up_says_more_access_and_what_was_added(allow, app, user):
    issue(user, app, resource=MCP, scope="rates:read calls:read")
    message = allow("credits:read rates:read calls:read")
    assert message.subject == "Pocket Assistant was given more access to your account"
    assert "New app" not in message.subject and "was connected to your account on" not in message.body
    assert "already connected to your account, was given more access" in message.body
    also, before = message.body.split("It can now also:")[1].split("As before, it can:")
    assert sentence("credits:read") in also and sentence("rates:read") not in also
    assert sentence("rates:read") in before and sentence("calls:read") in before
    assert "/settings/connected-apps" in message.body


def test_a_step_up_allowed_in_part_names_only_what_was_allowed(allow, app, user):
    issue(user, app, resource=MCP, scope="rates:read")
    message = allow("credits:read calls:read rates:read", scopes=["credits:read", "rates:read"])
    assert message.subject == "Pocket Assistant was given more access to your account"
    assert sentence("credits:read") in message.body and sentence("calls:read") not in message.body


def test_connecting_again_with_nothing_new_says_so(allow, app, user):
    issue(user, app, resource=MCP, scope="rates:read calls:read")
    message = allow("rates:read")
    assert message.subject == "Pocket Assistant was connected to your account again"
    assert "given nothing it did not have" in message.body and sentence("rates:read") in message.body


def test_what_the_app_holds_for_another_resource_makes_no_step_up(allow, app, user):
    issue(user, app, resource=V1, scope="rates:read")
    assert allow("rates:read credits:read").subject == "New app connected to your account: Pocket Assistant"


def test_a_disconnected_app_is_new_again(allow, app, user):
    from apps.oauth.connections.services import connection_revoke

    issue(user, app, resource=MCP, scope="rates:read")
    connection_revoke(user=user, client_id=app.client_id)
    assert allow("rates:read credits:read").subject == "New app connected to your account: Pocket Assistant"


def test_the_mail_server_down_leaves_the_step_up_standing(
    browser, app, user, monkeypatch, django_capture_on_commit_callbacks
):
    from apps.oauth import services

    def down(**kwargs):
        raise OSError("mail server down")

    issue(user, app, resource=MCP, scope="rates:read")
    monkeypatch.setattr(services, "send_mail", down)
    txn_id = start(browser, app, pkce()[1], scope="credits:read rates:read", resource=MCP)
    with django_capture_on_commit_callbacks(execute=True):
        response = decide(browser, txn_id, "allow")
    assert mail.outbox == []
    assert response.status_code == 200 and "code=" in response.json()["redirect_to"]
