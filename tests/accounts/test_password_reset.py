"""Password reset by email and password change (docs/spec.md 3.3): each revokes every
OAuth token and every API key of the account, with one audit entry."""

import re

import pytest
from django.core import mail
from django.test import Client

from apps.audit.models import EventType
from tests.support.accounts import NEW_PASSWORD, assert_all_revoked, assert_stranger_untouched, password_events
from tests.support.factories import PASSWORD
from tests.support.oauth import issue, make_client, me, signed_in

pytestmark = pytest.mark.django_db


def reset_link(user) -> str:
    response = Client().post("/password-reset", {"email": user.email.upper()})
    assert response.status_code == 302
    assert response["Location"] == "/password-reset/sent"
    (message,) = mail.outbox
    assert message.to == [user.email]
    match = re.search(r"http://testserver(/password-reset/[^/\s]+/[^/\s]+)", message.body)
    assert match, message.body
    return match.group(1)


def choose_password(link: str, first=NEW_PASSWORD, second=NEW_PASSWORD, client=None):
    browser = client or Client()
    response = browser.get(link)
    assert response.status_code == 302  # Django moves the token into the session
    form_url = response["Location"]
    return browser.post(form_url, {"new_password1": first, "new_password2": second})


# -- reset by email --------------------------------------------------------------


def test_reset_by_email_revokes_every_token_and_key(user, credentials):
    credentials["user"] = user
    link = reset_link(user)

    response = choose_password(link)

    assert response.status_code == 302
    assert response["Location"] == "/password-reset/complete"
    assert_all_revoked(credentials)
    assert_stranger_untouched(credentials)
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    (event,) = password_events()
    assert event.event_type == EventType.PASSWORD_RESET
    assert event.user == user
    assert (event.actor_type, event.actor_id) == ("user", user.pk)
    assert event.request_id.startswith("req_")
    assert event.ip_address == "127.0.0.1"
    assert event.data == {"api_keys_revoked": 2, "refresh_tokens_revoked": 2, "access_tokens_revoked": 2}


def test_reset_link_works_once(user):
    link = reset_link(user)
    assert choose_password(link).status_code == 302
    response = Client().get(link)
    assert response.status_code == 200
    assert "does not work" in response.content.decode()


def test_mismatched_passwords_change_nothing(user, credentials):
    link = reset_link(user)
    response = choose_password(link, second="something-else-entirely-9")
    assert response.status_code == 200  # the form again, with its error
    assert me(credentials["tokens"][0]["access_token"]).status_code == 200
    assert me(credentials["keys"][0]).status_code == 200
    assert not password_events()
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_unknown_email_sends_nothing_and_says_the_same(user):
    response = Client().post("/password-reset", {"email": "nobody@example.com"})
    assert response.status_code == 302
    assert response["Location"] == "/password-reset/sent"
    assert mail.outbox == []
    assert not password_events()


def test_reset_email_links_to_the_app_url(user, settings):
    settings.APP_URL = "https://app.example.test"
    Client().post("/password-reset", {"email": user.email})
    (message,) = mail.outbox
    assert "https://app.example.test/password-reset/" in message.body


def test_a_failed_revocation_leaves_the_old_password(user, credentials, monkeypatch):
    from apps.accounts import security

    def broken(**kwargs):
        raise RuntimeError("database went away")

    monkeypatch.setattr(security, "apikey_revoke_all_for_user", broken)
    link = reset_link(user)
    browser = Client(raise_request_exception=False)
    response = choose_password(link, client=browser)
    assert response.status_code == 500
    user.refresh_from_db()
    assert user.check_password(PASSWORD)
    assert me(credentials["tokens"][0]["access_token"]).status_code == 200
    assert not password_events()


# -- change while signed in --------------------------------------------------------


def test_change_revokes_every_token_and_key_and_keeps_this_session(user, credentials):
    credentials["user"] = user
    browser = signed_in(user)

    response = browser.post(
        "/settings/password",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )

    assert response.status_code == 302
    assert response["Location"] == "/settings/password/done"
    assert_all_revoked(credentials)
    assert_stranger_untouched(credentials)
    (event,) = password_events()
    assert event.event_type == EventType.PASSWORD_CHANGED
    assert (event.actor_type, event.actor_id) == ("user", user.pk)
    assert browser.get("/settings/password/done").status_code == 200  # still signed in here


def test_change_signs_out_other_sessions(user):
    other = signed_in(user)
    browser = signed_in(user)
    browser.post(
        "/settings/password",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert other.get("/settings/connected-apps").status_code == 302


def test_wrong_current_password_changes_nothing(user, credentials):
    response = signed_in(user).post(
        "/settings/password",
        {"old_password": "not-it", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 200
    assert me(credentials["tokens"][0]["access_token"]).status_code == 200
    assert me(credentials["keys"][0]).status_code == 200
    assert not password_events()


def test_change_needs_sign_in():
    response = Client().get("/settings/password")
    assert response.status_code == 302
    assert response["Location"].startswith("/login")


def test_tokens_issued_after_the_change_work(user):
    browser = signed_in(user)
    browser.post(
        "/settings/password",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    fresh = issue(user, make_client())
    assert me(fresh["access_token"]).status_code == 200


def test_sign_in_page_links_to_the_reset(db):
    assert 'href="/password-reset"' in Client().get("/login").content.decode()


def test_settings_pages_link_to_each_other(user):
    html = signed_in(user).get("/").content.decode()
    for href in ("/settings/connected-apps", "/settings/sharing", "/settings/activity", "/settings/password"):
        assert f'href="{href}"' in html
