"""PostgreSQL answers a contact search from an index (docs/design.md, Phase 2: "PostgreSQL uses an index for it,
SQLite may scan"), shown with EXPLAIN for an account of 10,000 contacts among other accounts' contacts.

The rows are the services' (the same sort key, name words and digit suffixes, from
apps.contacts.search) but loaded with COPY: 15,000 contacts through the ORM would cost
this suite a minute.
"""

import random
from datetime import UTC, datetime

import pytest
from django.db import connection

from apps.contacts import search, selectors
from apps.contacts.models import Contact, ContactPhoneNumber, ContactSearchTerm
from apps.contacts.selectors import ContactList
from apps.core.ids import new_id
from apps.credentials.principal import Principal
from tests.support.factories import UserFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the index plan is PostgreSQL's (SQLite may scan)"),
]

FIRST = ["Ana", "José", "Maria", "Li", "Kenji", "Fatima", "Olga", "Pierre", "Aisha", "Lukas", "Sofia", "Mateo"]
LAST = ["Álvarez", "Kim", "Nowak", "Dubois", "Okafor", "Silva", "Tanaka", "Müller", "Rossi", "Novak", "Haddad"]
TERM_INDEX = "contacts_term_prefix_idx"
CREATED = datetime(2026, 1, 1, tzinfo=UTC)


def address_book(user, count: int, rng: random.Random):
    """Rows of ``count`` contacts with two numbers each, as contacts_create writes them."""
    contacts, phones, terms = [], [], []
    for n in range(count):
        name = f"{rng.choice(FIRST)} {rng.choice(LAST)} {n}"
        contact_id, sort_name = new_id("ct_"), search.sort_key(name)
        contacts.append((contact_id, user.pk, True, CREATED, name, sort_name))
        numbers = [
            (f"+1{rng.randint(2012000000, 9899999999)}", "mobile", "US"),
            (f"+44{rng.randint(2000000000, 7999999999)}", "work", "GB"),
        ]
        phones += [(contact_id, position, *number) for position, number in enumerate(numbers)]
        terms += [(contact_id, user.pk, True, "n", word, sort_name) for word in search.name_words(name)]
        digits = dict.fromkeys(suffix for number, _, _ in numbers for suffix in search.digit_terms(number))
        terms += [(contact_id, user.pk, True, "d", suffix, sort_name) for suffix in digits]
    return contacts, phones, terms


def copy(model, columns, rows):
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor, cursor.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as out:
        for row in rows:
            out.write_row(row)


@pytest.fixture(scope="module")
def account(django_db_setup, django_db_blocker):
    """10,000 contacts for the account and 5,000 for another, loaded once for the module."""
    rng = random.Random(19)
    with django_db_blocker.unblock():
        user, other = UserFactory(), UserFactory()
        for owner, count in ((user, 10_000), (other, 5_000)):
            contacts, phones, terms = address_book(owner, count, rng)
            copy(Contact, ["id", "user_id", "livemode", "created", "name", "sort_name"], contacts)
            copy(ContactPhoneNumber, ["contact_id", "position", "number", "label", "country"], phones)
            copy(ContactSearchTerm, ["contact_id", "user_id", "livemode", "kind", "term", "sort_name"], terms)
        with connection.cursor() as cursor:
            for model in (Contact, ContactPhoneNumber, ContactSearchTerm):
                cursor.execute(f"VACUUM ANALYZE {model._meta.db_table}")
        yield user
        with connection.cursor() as cursor:
            cursor.execute("TRUNCATE contacts_contactsearchterm, contacts_contactphonenumber, contacts_contact")
        user.delete()
        other.delete()


def principal_of(user) -> Principal:
    return Principal(kind="api_key", user=user, credential_id="key_x", scopes=frozenset({"contacts:read"}))


def page_plan(user, query, **cursor) -> str:
    return selectors.contact_list(principal=principal_of(user), query=query).queryset(limit=11, **cursor).explain()


@pytest.mark.parametrize("query", ["ana", "jo", "alv", "ana kim", "m", "5550", "0100", "+1 415", "44 20"])
def test_a_search_reads_the_term_index_and_scans_no_table(account, query):
    plan = page_plan(account, query)
    assert f"Index Only Scan using {TERM_INDEX}" in plan, plan
    assert "Seq Scan" not in plan, plan
    # Only the page's contacts are read, by key.
    assert "Index Scan using contacts_contact_pkey" in plan, plan


def test_a_later_search_page_is_a_range_of_the_same_index(account):
    contact = Contact.objects.filter(user=account, name__startswith="Ana").order_by("sort_name", "id")[200]
    plan = page_plan(account, "ana", after={"sort_name": contact.sort_name, "id": contact.id})
    assert f"Index Only Scan using {TERM_INDEX}" in plan and "Seq Scan" not in plan, plan


def test_the_unfiltered_list_reads_the_name_index_in_order(account):
    plan = page_plan(account, None)
    assert "contacts_user_mode_name_idx" in plan, plan
    assert "Seq Scan" not in plan and "Sort" not in plan, plan


@pytest.mark.parametrize("direction", ["after", "before"])
def test_a_later_page_is_one_range_of_the_name_index(account, direction):
    contact = Contact.objects.filter(user=account).order_by("sort_name", "id")[5000]
    plan = page_plan(account, None, **{direction: {"sort_name": contact.sort_name, "id": contact.id}})
    assert "contacts_user_mode_name_idx" in plan and "Seq Scan" not in plan and "Sort" not in plan, plan


def test_the_plan_answers_what_the_list_shows(account):
    found = selectors.contact_list(principal=principal_of(account), query="ana kim").page(limit=500)
    assert found and all(c.name.startswith("Ana Kim ") for c in found)
    expected = Contact.objects.filter(user=account, name__startswith="Ana Kim ").order_by("sort_name", "id")
    assert [c.id for c in found] == [c.id for c in expected]
    assert isinstance(selectors.contact_list(principal=principal_of(account)), ContactList)


def plan_shape(user, query) -> list:
    """The plan's nodes (type, index, relation), depth first: what the planner chose, without its costs."""
    import json

    explained = selectors.contact_list(principal=principal_of(user), query=query).queryset(limit=11)
    plan = json.loads(explained.explain(format="json"))[0]["Plan"]

    def walk(node):
        yield (node["Node Type"], node.get("Index Name"), node.get("Relation Name"), node.get("Subplan Name"))
        for child in node.get("Plans", []):
            yield from walk(child)

    return list(walk(plan))


@pytest.mark.parametrize(
    ("one_word", "many"),
    [
        ("ana", "ana k m j a b c d"),  # eight words, the longest the same
        ("a", "\u249c" * 100),  # a hundred characters folding to "(a)"
        ("a", "\u249c\u249d\u249e\u249f\u24a0\u24a1\u24a2\u24a3"),  # eight folded words
    ],
)
def test_the_plan_of_many_words_is_the_plan_of_one(account, one_word, many):
    assert plan_shape(account, many) == plan_shape(account, one_word)
    assert any(node[1] == TERM_INDEX for node in plan_shape(account, many))
