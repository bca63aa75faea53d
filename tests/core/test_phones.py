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
