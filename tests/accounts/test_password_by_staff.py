"""Passwords set by staff in the admin or with `manage.py changepassword` revoke
every token and key too (docs/spec.md 3.3: all tokens and all API keys are revoked on a
password reset, whoever performs it)."""

from unittest import mock

import pytest
from django.contrib.admin.utils import quote
from django.core.management import call_command
from django.test import Client

from tests.support.accounts import NEW_PASSWORD, assert_all_revoked, assert_stranger_untouched, password_events
from tests.support.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_admin_password_change_revokes_every_token_and_key(user, credentials):
    credentials["user"] = user
    staff = Client()
    staff.force_login(UserFactory(is_staff=True, is_superuser=True))
    response = staff.post(
        f"/admin/accounts/user/{quote(user.pk)}/password/",
        {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD, "usable_password": "true"},
    )
    assert response.status_code == 302, response.content[:2000]
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    assert_all_revoked(credentials)
    assert_stranger_untouched(credentials)
    assert len(password_events()) == 1


def test_admin_password_mismatch_revokes_nothing(user, credentials):
    staff = Client()
    staff.force_login(UserFactory(is_staff=True, is_superuser=True))
    response = staff.post(
        f"/admin/accounts/user/{quote(user.pk)}/password/",
        {"password1": NEW_PASSWORD, "password2": "something-else-entirely", "usable_password": "true"},
    )
    assert response.status_code == 200
    assert password_events() == []
    assert_stranger_untouched(credentials)


def test_changepassword_command_revokes_every_token_and_key(user, credentials):
    credentials["user"] = user
    with mock.patch("getpass.getpass", return_value=NEW_PASSWORD):
        call_command("changepassword", user.email)
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    assert_all_revoked(credentials)
    assert_stranger_untouched(credentials)
    assert len(password_events()) == 1


def test_the_admin_reaches_a_user_whose_id_looks_escaped():
    # The admin reads "_3A" in a URL as an escaped ":"; its links quote the id, and so must ours
    # (one id in about two hundred starts with such a sequence after "usr_").
    user = UserFactory(id="usr_3AbcdefghijklmnopqrstuV")
    staff = Client()
    staff.force_login(UserFactory(is_staff=True, is_superuser=True))
    assert staff.get(f"/admin/accounts/user/{quote(user.pk)}/password/").status_code == 200
    assert staff.get(f"/admin/accounts/user/{user.pk}/password/").status_code == 404
