"""Staff find an account's contacts in the admin (by account email or id, name, number) and edit them;
an edit keeps the search terms, the sort key and the numbers' countries in step."""

import pytest
from django.contrib.admin.utils import quote

from apps.contacts.models import Contact, ContactPhoneNumber, ContactSearchTerm
from tests.support.factories import UserFactory, make_api_key

from .factories import make_contact

pytestmark = pytest.mark.django_db

ADMIN = "/admin/contacts/contact/"


def listed(response) -> str:
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("query", ["owner@example.com", "OWNER@example", "José", "612345678", "+34612345678"])
def test_staff_find_an_accounts_contacts(admin_client, query):
    owner = UserFactory(email="owner@example.com")
    mine = make_contact(owner, "José Álvarez", [("+34612345678", "mobile")])
    other = make_contact(UserFactory(), "Bo Lin", [("+442071838750", "work")])
    html = listed(admin_client.get(ADMIN, {"q": query}))
    assert mine.id in html and other.id not in html


def test_staff_find_them_by_account_id_and_filter_by_mode(admin_client):
    owner = UserFactory()
    live = make_contact(owner, "Ana Live")
    test = make_contact(owner, "Ana Test", livemode=False)
    html = listed(admin_client.get(ADMIN, {"q": owner.pk}))
    assert live.id in html and test.id in html
    html = listed(admin_client.get(ADMIN, {"livemode__exact": "0"}))
    assert test.id in html and live.id not in html


def test_a_contact_page_shows_its_numbers(admin_client, user):
    contact = make_contact(user, "Ana López", [("+34612345678", "mobile"), ("+14155550100", "work")])
    html = listed(admin_client.get(f"{ADMIN}{quote(contact.pk)}/change/"))
    assert "+34612345678" in html and "+14155550100" in html


def inline_form(contact, *, name, numbers, delete=()):
    phones = list(contact.phone_numbers.all())
    data = {
        "name": name,
        "phone_numbers-TOTAL_FORMS": str(len(phones) + len(numbers)),
        "phone_numbers-INITIAL_FORMS": str(len(phones)),
        "phone_numbers-MIN_NUM_FORMS": "0",
        "phone_numbers-MAX_NUM_FORMS": "10",
    }
    for n, phone in enumerate(phones):
        data |= {
            f"phone_numbers-{n}-id": str(phone.pk),
            f"phone_numbers-{n}-contact": contact.pk,
            f"phone_numbers-{n}-position": str(phone.position),
            f"phone_numbers-{n}-number": phone.number,
            f"phone_numbers-{n}-label": phone.label,
        }
        if phone.number in delete:
            data[f"phone_numbers-{n}-DELETE"] = "on"
    for n, (number, label) in enumerate(numbers, start=len(phones)):
        data |= {
            f"phone_numbers-{n}-contact": contact.pk,
            f"phone_numbers-{n}-position": str(n),
            f"phone_numbers-{n}-number": number,
            f"phone_numbers-{n}-label": label,
        }
    return data


def test_an_edit_keeps_search_and_order_in_step(admin_client, user, client):
    contact = make_contact(user, "Ana López", [("+34612345678", "mobile")])
    form = inline_form(contact, name="Zoë Quinn", numbers=[("+442071838750", "work")], delete=["+34612345678"])
    response = admin_client.post(f"{ADMIN}{quote(contact.pk)}/change/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    contact.refresh_from_db()
    assert (contact.name, contact.sort_name) == ("Zoë Quinn", "zoe quinn")
    assert [(p.number, p.country) for p in contact.phone_numbers.all()] == [("+442071838750", "GB")]
    assert set(ContactSearchTerm.objects.filter(contact=contact, kind="n").values_list("term", flat=True)) == {
        "zoe",
        "quinn",
    }
    _key, secret = make_api_key(user, scopes=["contacts:read"])

    def found(query):
        body = client.get("/v1/contacts", {"query": query}, HTTP_AUTHORIZATION=f"Bearer {secret}").json()
        return [c["id"] for c in body["data"]]

    assert found("zoe") == found("7183") == [contact.id]
    assert found("ana") == found("612345") == []


def test_a_number_that_is_not_e164_is_refused(admin_client, user):
    contact = make_contact(user, "Ana López", numbers=())
    form = inline_form(contact, name="Ana López", numbers=[("0612 345 678", "mobile")])
    response = admin_client.post(f"{ADMIN}{quote(contact.pk)}/change/", form)
    assert response.status_code == 200
    assert "E.164" in response.content.decode()
    assert not ContactPhoneNumber.objects.exists()


def test_staff_add_a_contact_to_an_account(admin_client, user):
    data = {
        "user": user.pk,
        "livemode": "on",
        "name": "  Kenji   Tanaka ",
        "phone_numbers-TOTAL_FORMS": "1",
        "phone_numbers-INITIAL_FORMS": "0",
        "phone_numbers-MIN_NUM_FORMS": "0",
        "phone_numbers-MAX_NUM_FORMS": "10",
        "phone_numbers-0-position": "0",
        "phone_numbers-0-number": "+819012345678",
        "phone_numbers-0-label": "mobile",
    }
    response = admin_client.post(f"{ADMIN}add/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    contact = Contact.objects.get(user=user)
    assert (contact.name, contact.sort_name, contact.livemode) == ("Kenji Tanaka", "kenji tanaka", True)
    assert contact.phone_numbers.get().country == "JP"
    assert ContactSearchTerm.objects.filter(contact=contact, kind="d", term="12345678").exists()


def test_a_contact_stays_in_its_account_and_mode(admin_client, user):
    contact = make_contact(user)
    html = listed(admin_client.get(f"{ADMIN}{quote(contact.pk)}/change/"))
    assert 'name="user"' not in html and 'name="livemode"' not in html
