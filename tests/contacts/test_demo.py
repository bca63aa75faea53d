"""apps.contacts.demo.seed for manage.py seed_demo: a few dozen contacts in one mode, searchable."""

import random
from collections import Counter
from datetime import UTC, datetime

import pytest
from django.apps import apps

from apps.contacts import demo
from apps.contacts.models import Contact
from apps.demo.services import demo_seed
from tests.support.factories import UserFactory, make_api_key

from .factories import make_contact

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def seed(user, livemode=True, seed=1):
    return demo.seed(user=user, livemode=livemode, rng=random.Random(seed), now=NOW)


def test_live_mode_gets_a_few_dozen_contacts_with_numbers_of_their_countries(user):
    made = seed(user)
    assert 24 <= len(made) <= 60
    assert Contact.objects.filter(user=user, livemode=True).count() == len(made)
    countries = set()
    for contact in made:
        numbers = list(contact.phone_numbers.all())  # prefetched for the calls step
        assert 1 <= len(numbers) <= 3
        assert all(n.number.startswith("+") and n.country for n in numbers)
        countries |= {n.country for n in numbers}
    assert len(countries) >= 10  # from around the world
    assert Counter(len(list(c.phone_numbers.all())) for c in made)[1] < len(made) / 2  # most have several
    assert {n.label for c in made for n in c.phone_numbers.all()} >= {"mobile", "home", "work"}
    assert all(c.created < NOW for c in made)


def test_the_returned_contacts_need_no_query(user, django_assert_num_queries):
    made = seed(user)
    with django_assert_num_queries(0):
        assert all(c.name and list(c.phone_numbers.all()) for c in made)


def test_test_mode_is_a_smaller_set_and_kept_apart(user):
    live = {c.id for c in seed(user, livemode=True)}
    test = seed(user, livemode=False)
    assert 1 <= len(test) < len(live)
    assert {c.id for c in Contact.objects.filter(user=user, livemode=True)} == live
    assert all(c.livemode is False for c in test)


def test_seeding_again_replaces_and_the_same_seed_gives_the_same_contacts(user):
    make_contact(user, "Old Entry")
    other = make_contact(UserFactory(), "Someone Else")
    first = [(c.id, c.name, [p.number for p in c.phone_numbers.all()]) for c in seed(user)]
    assert not Contact.objects.filter(name="Old Entry").exists()
    assert Contact.objects.filter(pk=other.pk).exists()
    again = [(c.id, c.name, [p.number for p in c.phone_numbers.all()]) for c in seed(user)]
    assert again == first
    assert [c.name for c in seed(user, seed=2)] != [name for _id, name, _numbers in first]


def test_the_demo_address_book_is_searchable(user, client):
    made = seed(user)
    _key, secret = make_api_key(user, scopes=["contacts:read"])
    someone = made[0]
    first_word = someone.name.split()[0][:3]
    last_digits = someone.phone_numbers.all()[0].number[-4:]
    for query in (first_word, last_digits):
        body = client.get("/v1/contacts", {"query": query, "limit": 100}, HTTP_AUTHORIZATION=f"Bearer {secret}")
        assert someone.id in [c["id"] for c in body.json()["data"]], query


def test_seed_demo_calls_the_demo_contacts(user):
    demo_seed(user=user, now=NOW)
    call_model = apps.get_model("calls", "Call")
    for livemode in (True, False):
        contacts = set(Contact.objects.filter(user=user, livemode=livemode).values_list("id", flat=True))
        called = set(
            call_model.objects.filter(user_id=user.pk, livemode=livemode)
            .exclude(contact_id__isnull=True)
            .exclude(contact_id="")
            .values_list("contact_id", flat=True)
        )
        assert called and called <= contacts
