"""Staff find an account's numbers and caller IDs in the admin (by account email or id, number, label);
the account holder's messages_opt_in switch is shown, never set there."""

import pytest
from django.contrib.admin.sites import site
from django.contrib.admin.utils import quote

from apps.numbers.models import CallerId, Number
from tests.support.factories import UserFactory

from .factories import make_caller_id, make_number

pytestmark = pytest.mark.django_db

NUMBERS = "/admin/numbers/number/"
CALLER_IDS = "/admin/numbers/callerid/"


def listed(response) -> str:
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("query", ["owner@example.com", "OWNER@", "+442071838750", "2071838", "London"])
def test_staff_find_an_accounts_numbers(admin_client, query):
    owner = UserFactory(email="owner@example.com")
    mine = make_number(owner, "+442071838750", label="London office")
    other = make_number(UserFactory(), "+493012345678", label="Berlin")
    html = listed(admin_client.get(NUMBERS, {"q": query}))
    assert mine.id in html and other.id not in html


def test_staff_find_them_by_account_id_and_filter(admin_client):
    owner = UserFactory()
    active = make_number(owner, "+442071838750")
    canceled = make_number(owner, "+442071838751", status="canceled", livemode=False)
    assert active.id in listed(admin_client.get(NUMBERS, {"q": owner.pk}))
    html = listed(admin_client.get(NUMBERS, {"status__exact": "canceled", "livemode__exact": "0"}))
    assert canceled.id in html and active.id not in html


@pytest.mark.parametrize("query", ["owner@example.com", "+14155550100", "5550100"])
def test_staff_find_an_accounts_caller_ids(admin_client, query):
    owner = UserFactory(email="owner@example.com")
    mine = make_caller_id(owner, "+14155550100", default=True)
    other = make_caller_id(UserFactory(), "+34612345678")
    html = listed(admin_client.get(CALLER_IDS, {"q": query}))
    assert mine.id in html and other.id not in html


def test_the_switch_is_shown_but_not_editable(admin_client, user):
    number = make_number(user)
    html = listed(admin_client.get(f"{NUMBERS}{quote(number.pk)}/change/"))
    assert 'name="messages_opt_in"' not in html
    assert "messages_opt_in" in site._registry[Number].readonly_fields


def test_staff_add_a_number_and_its_country_is_derived(admin_client, user):
    response = admin_client.post(
        f"{NUMBERS}add/",
        {
            "user": user.pk,
            "livemode": "on",
            "number": "+4915123456789",
            "type": "mobile",
            "voice": "on",
            "status": "active",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    number = Number.objects.get(user=user)
    assert (number.country, number.messages_opt_in) == ("DE", False)


def test_a_number_that_is_not_e164_is_refused(admin_client, user):
    response = admin_client.post(
        f"{NUMBERS}add/", {"user": user.pk, "number": "015123456789", "type": "mobile", "status": "active"}
    )
    assert response.status_code == 200 and "E.164" in response.content.decode()
    assert not Number.objects.exists()


def test_a_second_default_caller_id_is_refused_by_the_form(admin_client, user):
    make_caller_id(user, "+14155550100", default=True)
    response = admin_client.post(
        f"{CALLER_IDS}add/",
        {
            "user": user.pk,
            "livemode": "on",
            "number": "+14155550101",
            "verified_at_0": "2026-01-01",
            "verified_at_1": "10:00:00",
            "is_default": "on",
        },
    )
    assert response.status_code == 200
    assert "This account already has a default caller ID in this mode." in response.content.decode()
    assert CallerId.objects.filter(user=user).count() == 1


def test_the_make_default_action_moves_the_default(admin_client, user):
    first = make_caller_id(user, "+14155550100", default=True)
    second = make_caller_id(user, "+14155550101")
    response = admin_client.post(CALLER_IDS, {"action": "make_default", "_selected_action": [second.pk]})
    assert response.status_code == 302
    assert CallerId.objects.get(pk=second.pk).is_default is True
    assert CallerId.objects.get(pk=first.pk).is_default is False
    admin_client.post(CALLER_IDS, {"action": "make_default", "_selected_action": [first.pk, second.pk]})
    assert CallerId.objects.get(pk=second.pk).is_default is True  # exactly one must be chosen
