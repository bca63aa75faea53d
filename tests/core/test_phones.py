"""apps.core.phones: a phone number as a query string brings it."""

import pytest

from apps.core.phones import from_query


@pytest.mark.parametrize(
    ("sent", "read"),
    [
        (" 4915112345678", "+4915112345678"),  # ?to=+4915112345678, the + unencoded
        (" 49 151 12345678", "+49 151 12345678"),
        ("+4915112345678", "+4915112345678"),  # %2B: as sent
        ("4915112345678", "4915112345678"),  # no + at all: left for the caller's message
        (" Germany", " Germany"),
        (" ", " "),
        ("", ""),
        (None, None),
    ],
)
def test_a_leading_space_before_digits_is_the_plus_the_caller_typed(sent, read):
    assert from_query(sent) == read


def test_one_owner_of_readable_numbers_country_names_and_one_line():
    from apps.core.phones import country_name, readable
    from apps.core.text import one_line

    assert readable("+4915112345678") == "+49 1511 2345678"
    assert readable("not a number") == "not a number"
    assert country_name("DE") == "Germany" and country_name("XX") == "XX"
    assert one_line(" Ana\nLópez\t Jr ") == "Ana López Jr"


# The forms a number arrives in (docs/design.md "Numbers are canonical"): each names the number it dials.
CANONICAL_FORMS = [
    ("+4407700900123", "+447700900123"),  # a trunk zero after the country code
    ("+49015112345678", "+4915112345678"),
    ("+330612345678", "+33612345678"),
    ("+112025550105", "+12025550105"),  # the country code twice
    ("+49009001234567", "+499001234567"),  # where formatting and parsing again stops changing it
    ("+4909001234567", "+499001234567"),
    ("+390612345678", "+390612345678"),  # Italy keeps its leading zero: it is dialled
    ("+12025550100", "+12025550100"),
]
TYPED_FORMS = [
    ("+1 202-555-0177", "+12025550177"),
    ("+1 (202) 555 0177", "+12025550177"),
    ("+1.202.555.0177", "+12025550177"),
    ("+1 1 202 555 0177", "+12025550177"),
    ("+44 (0)7700 900123", "+447700900123"),
    ("+49 0 900 1234567", "+499001234567"),
    (" +49 151 12345678 ", "+4915112345678"),
]


@pytest.mark.parametrize(("written", "dialled"), CANONICAL_FORMS)
def test_every_number_is_kept_as_the_number_it_dials(written, dialled):
    from apps.core.phones import canonical

    assert canonical(written) == dialled
    assert canonical(dialled) == dialled


@pytest.mark.parametrize(("typed", "dialled"), TYPED_FORMS)
def test_typed_separators_are_read_only_where_allowed(typed, dialled):
    from django.core.exceptions import ValidationError

    from apps.core.phones import canonical

    assert canonical(typed, typed=True) == dialled
    with pytest.raises(ValidationError):
        canonical(typed)


NOT_NUMBERS = ["+1 800 FLOWERS", "++12025550100", "+1--", "12025550100", "+", "+0 20", "+1 202 555 0177 x12"]


@pytest.mark.parametrize("bad", NOT_NUMBERS)
def test_what_is_not_a_number_stays_refused(bad):
    from django.core.exceptions import ValidationError

    from apps.core.phones import canonical, canonical_or_none

    with pytest.raises(ValidationError):
        canonical(bad, typed=True)
    assert canonical_or_none(bad) is None


def test_stored_rows_are_rewritten_by_distinct_value(db):
    from apps.core.phones import canonicalize_stored
    from apps.numbers.models import CallerId
    from tests.support.factories import UserFactory

    user = UserFactory()
    for number in ("+4407700900123", "+4407700900123", "+12025550100"):
        CallerId.objects.create(user=user, livemode=True, number=number, country="GB")
    assert canonicalize_stored(CallerId, "number") == {"+4407700900123": "+447700900123"}
    assert sorted(CallerId.objects.values_list("number", flat=True)) == ["+12025550100", *["+447700900123"] * 2]
