"""bench/dataset.py on PostgreSQL: the bulk rows obey the models and the services' rules, and the API reads them."""

import pytest
from django.db import connection
from django.utils import timezone

from apps.billing.models import Balance, BalanceTransaction
from apps.calls.models import Call, Transcript
from apps.contacts.models import Contact, ContactSearchTerm
from apps.contacts.search import digit_terms, name_words, sort_key
from apps.messages.models import Message
from apps.messages.services import message_build
from apps.numbers.models import Number
from apps.rates.models import Rate
from apps.rates.selectors import rate_for_number
from bench import dataset
from tests.support.factories import UserFactory, make_api_key

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("the data set is written with COPY and INSERT ... SELECT on PostgreSQL")


@pytest.fixture
def built():
    users = [UserFactory(), UserFactory()]
    start = timezone.now() - timezone.timedelta(days=2)
    lines = dataset.dataset_build(
        heavy=[u.pk for u in users], scale=0.0005, start=start, created=start, now=timezone.now()
    )
    return users, lines


def test_sizes_and_the_ledger_chain(built):
    users, lines = built
    size = lines["size"]
    assert size == {"deck": 30, "ledger": 50, "calls": 50, "contacts": 5, "messages": 5}
    for user in users:
        rows = list(BalanceTransaction.objects.filter(user=user).order_by("created", "id"))
        assert len(rows) == size["ledger"]
        balance = 0
        for row in rows:
            balance += row.amount
            assert row.ending_balance == balance
        assert Balance.objects.get(user=user, livemode=True).amount == balance
        assert Call.objects.filter(user_id=user.pk).count() == size["calls"]
        assert Contact.objects.filter(user_id=user.pk).count() == size["contacts"]
        assert Message.objects.filter(user_id=user.pk).count() == size["messages"]
    assert Transcript.objects.filter(call__user_id__in=[u.pk for u in users]).exists()
    dataset.dataset_check(users=[u.pk for u in users])


def test_a_broken_chain_is_refused(built):
    users, _ = built
    row = BalanceTransaction.objects.filter(user=users[0]).order_by("created").first()
    BalanceTransaction.objects.filter(pk=row.pk).update(ending_balance=row.ending_balance + 1)
    with pytest.raises(RuntimeError, match="chain broken"):
        dataset.dataset_check(users=[u.pk for u in users])


def test_contacts_carry_the_services_sort_key_and_terms(built):
    users, _ = built
    contact = Contact.objects.filter(user_id=users[0].pk).prefetch_related("phone_numbers").first()
    assert contact.sort_name == sort_key(contact.name)
    expected = {("n", w) for w in name_words(contact.name)}
    expected |= {("d", t) for phone in contact.phone_numbers.all() for t in digit_terms(phone.number)}
    assert set(ContactSearchTerm.objects.filter(contact=contact).values_list("kind", "term")) == expected
    assert all(phone.country == "US" for phone in contact.phone_numbers.all())


def test_calls_name_the_accounts_own_contacts(built):
    users, _ = built
    referenced = set(
        Call.objects.filter(user_id=users[0].pk).exclude(contact_id="").values_list("contact_id", flat=True)
    )
    assert referenced
    assert referenced <= set(Contact.objects.filter(user_id=users[0].pk).values_list("id", flat=True))


def test_the_deck_prices_every_lookup_number(built):
    _, lines = built
    assert Rate.objects.count() >= 1000  # at least the demo deck: every region has a price
    assert all(rate_for_number(number) is not None for number in lines["numbers"])


def test_the_api_reads_the_rows(built, api):
    users, _ = built
    _key, secret = make_api_key(users[0], scopes=["credits:read", "calls:read", "contacts:read"])
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    page = api.get("/v1/balance_transactions?limit=10").json()
    assert len(page["data"]) == 10 and page["has_more"] is True
    assert page["data"][0]["ending_balance"] == Balance.objects.get(user=users[0], livemode=True).amount
    assert len(api.get("/v1/calls?limit=10").json()["data"]) == 10
    found = api.get(f"/v1/contacts?query={name_words(Contact.objects.filter(user_id=users[0].pk).first().name)[0]}")
    assert found.status_code == 200 and found.json()["data"]


def test_messages_are_stored_as_an_arrival_stores_them_on_two_shared_numbers(built):
    users, _ = built
    numbers = list(Number.objects.filter(user_id=users[0].pk))
    assert len(numbers) == 2 and all(n.sms and n.messages_opt_in for n in numbers)
    assert users[0].sharing_settings.message_reading is True
    assert len({n.number for n in Number.objects.filter(user_id__in=[u.pk for u in users])}) == 4
    messages = list(Message.objects.filter(user_id=users[0].pk).select_related("number"))
    assert {m.number_id for m in messages} == {n.id for n in numbers}
    assert any(m.code for m in messages) and any(m.code_domain for m in messages)
    for message in messages:
        again = message_build(number=message.number, sender=message.from_sender, body=message.body)
        assert (message.to_number, message.num_segments, message.code, message.code_domain) == (
            again.to_number, again.num_segments, again.code, again.code_domain
        )  # fmt: skip
        assert timezone.now() - message.created < timezone.timedelta(days=31)


def test_the_message_list_reads_the_inbox(built, api):
    users, _ = built
    _key, secret = make_api_key(users[0], scopes=["messages:read", "messages:history"])
    page = api.get("/v1/messages?limit=10", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert page.status_code == 200, page.content
    assert [m["id"] for m in page.json()["data"]] == list(
        Message.objects.filter(user_id=users[0].pk).order_by("-created", "-id").values_list("id", flat=True)[:10]
    )
