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
