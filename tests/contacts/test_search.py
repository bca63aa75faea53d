"""How names and numbers become search terms, and how a query is read (apps/contacts/search.py)."""

import pytest
from django.core.exceptions import ValidationError

from apps.contacts import search
from apps.contacts.models import Contact, ContactSearchTerm
from apps.contacts.services import ContactInput, PhoneInput, contact_create, contact_reindex, contacts_create

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("José Álvarez", ["jose", "alvarez"]),
        ("  ANA   lópez ", ["ana", "lopez"]),
        ("Łukasz Nowak", ["lukasz", "nowak"]),
        ("Jürgen Straße", ["jurgen", "strasse"]),
        ("Søren Ærø", ["soren", "aero"]),
        ("Zoë O'Brien", ["zoe", "o", "brien", "obrien"]),
        ("Jean-Luc Picard", ["jean", "luc", "picard", "jeanluc"]),
        ("Nguyễn Văn An", ["nguyen", "van", "an"]),
        ("Ana Ana", ["ana"]),
        ("王小明", ["王小明"]),
        ("Dr. No_Name (work)", ["dr", "no", "name", "work"]),
    ],
)
def test_name_words(name, words):
    assert search.name_words(name) == words


def test_sort_key_is_the_folded_words():
    assert search.sort_key("  José   Álvarez-Díaz ") == "jose alvarez diaz"
    assert search.sort_key("Émile") < search.sort_key("Eve") < search.sort_key("zoë")


def test_digit_terms_are_every_suffix():
    assert search.digit_terms("+34612") == ["34612", "4612", "612", "12", "2"]


@pytest.mark.parametrize(
    ("query", "kind", "terms"),
    [
        ("jose", "n", ("jose",)),
        ("José ÁLV", "n", ("jose", "alv")),
        ("ana ana", "n", ("ana",)),
        ("+1 (415) 555-0100", "d", ("14155550100",)),
        ("0100", "d", ("0100",)),
        ("415.555", "d", ("415555",)),
        ("ana 555", "n", ("ana", "555")),  # letters make it a name query
    ],
)
def test_parse_query(query, kind, terms):
    assert search.parse_query(query) == search.Query(kind, terms)


@pytest.mark.parametrize("query", ["", " ", "+", "- ()", "!!", "…"])
def test_a_query_with_nothing_to_search_for(query):
    assert search.parse_query(query) is None


def test_a_contact_is_stored_with_its_terms_and_sort_key(user):
    contact = contact_create(
        user=user,
        livemode=False,
        name=" José  Álvarez ",
        phone_numbers=[PhoneInput("+34612345678", "mobile"), PhoneInput("+34612345678", "work")],
    )
    assert (contact.name, contact.sort_name) == ("José Álvarez", "jose alvarez")
    terms = ContactSearchTerm.objects.filter(contact=contact)
    assert set(terms.filter(kind="n").values_list("term", flat=True)) == {"jose", "alvarez"}
    digits = list(terms.filter(kind="d").values_list("term", flat=True))
    assert sorted(digits) == sorted(search.digit_terms("+34612345678"))  # the same number once
    assert all(t.user_id == user.pk and t.livemode is False and t.sort_name == "jose alvarez" for t in terms)


@pytest.mark.parametrize(
    ("name", "numbers"),
    [
        ("", []),
        ("   ", []),
        ("x" * 201, []),
        ("Ana", [PhoneInput("0612345678", "mobile")]),
        ("Ana", [PhoneInput("+0612345678", "mobile")]),
        ("Ana", [PhoneInput("+1234567890123456", "mobile")]),
        ("Ana", [PhoneInput("+12", "mobile")]),
        ("Ana", [PhoneInput("+34612345678", "fax")]),
        ("Ana", [PhoneInput(f"+3461234567{n}", "mobile") for n in range(10)] + [PhoneInput("+34699999999")]),
    ],
)
def test_bad_contacts_are_refused_and_nothing_is_written(user, name, numbers):
    with pytest.raises(ValidationError):
        contacts_create(
            user=user,
            livemode=True,
            contacts=[ContactInput("Fine Entry", [PhoneInput("+34612345678")]), ContactInput(name, numbers)],
        )
    assert not Contact.objects.exists() and not ContactSearchTerm.objects.exists()


def test_reindex_follows_an_edited_name_and_numbers(user):
    contact = contact_create(user=user, livemode=True, name="Ana López", phone_numbers=[PhoneInput("+34612345678")])
    Contact.objects.filter(pk=contact.pk).update(name="Bo Lin")
    phone = contact.phone_numbers.get()
    phone.number = "+442071838750"
    phone.save()
    contact.refresh_from_db()
    contact_reindex(contact=contact)
    assert Contact.objects.get(pk=contact.pk).sort_name == "bo lin"
    assert contact.phone_numbers.get().country == "GB"
    terms = ContactSearchTerm.objects.filter(contact=contact)
    assert set(terms.filter(kind="n").values_list("term", flat=True)) == {"bo", "lin"}
    assert set(terms.filter(kind="d").values_list("term", flat=True)) == set(search.digit_terms("+442071838750"))
    assert set(terms.values_list("sort_name", flat=True)) == {"bo lin"}
