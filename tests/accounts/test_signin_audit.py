"""Sign-ins and failed sign-ins are written to the account's own log (Activity)."""

import re

import pytest
from django.test import Client

from apps.audit.models import ActorType, AuditEvent, EventType
from tests.support.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


def sign_in(email, password, path="/login"):
    return Client().post(path, {"username": email, "password": password})


def events(user):
    return list(AuditEvent.objects.filter(user=user).values_list("event_type", "actor_type", "data"))


def test_a_sign_in_is_recorded(user):
    response = sign_in(user.email, PASSWORD)
    assert response.status_code == 302
    assert events(user) == [(EventType.SIGNED_IN, ActorType.USER, {"page": "sign-in"})]
    event = AuditEvent.objects.get(user=user)
    assert event.ip_address == "127.0.0.1"
    assert re.fullmatch(r"req_\w+", event.request_id)


def test_a_wrong_password_is_recorded_as_a_failed_sign_in(user):
    response = sign_in(user.email.upper(), "not the password")
    assert response.status_code == 200
    assert events(user) == [(EventType.SIGN_IN_FAILED, ActorType.SYSTEM, {"page": "sign-in"})]


def test_an_unknown_address_records_nothing():
    sign_in("nobody@example.com", "whatever")
    assert AuditEvent.objects.count() == 0


def test_an_admin_sign_in_refused_to_a_non_staff_account_is_a_failed_one(user):
    response = sign_in(user.email, PASSWORD, path="/admin/login/")
    assert response.status_code == 200
    assert events(user) == [(EventType.SIGN_IN_FAILED, ActorType.SYSTEM, {"page": "admin"})]


def test_activity_shows_sign_ins_in_words(user):
    sign_in(user.email, "wrong")
    browser = Client()
    browser.post("/login", {"username": user.email, "password": PASSWORD})
    html = browser.get("/settings/activity").content.decode()
    assert html.count('data-event-type="account.signed_in"') == 1
    assert html.count('data-event-type="account.sign_in_failed"') == 1
    assert "Failed sign-in" in html and "Someone" in html


def test_another_accounts_failure_is_not_in_this_log(user):
    other = UserFactory()
    sign_in(other.email, "wrong")
    assert events(user) == []
