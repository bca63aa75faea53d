"""A rate's lookup costs what a one-word answer costs, whatever is typed: a country name is resolved
in memory (more words than any country's name is none, before any lookup) and answered with one
statement; a number is one statement whose IN list is bounded by the longest prefix."""

import contextlib

import pytest
from django.db import connection

from apps.core.errors import ApiError
from apps.rates import countries
from apps.rates.models import PREFIX_MAX_DIGITS
from apps.rates.selectors import rate_quote
from tests.rates.factories import make_deck

pytestmark = pytest.mark.django_db


@pytest.fixture
def deck():
    return make_deck()


def sent(query) -> list[str]:
    statements = []

    def record(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record), contextlib.suppress(ApiError):
        rate_quote(query=query)
    return statements


def test_no_country_name_has_more_words_than_the_bound():
    _, english, other = countries._tables()
    longest = max(len(name.split()) for table in (english, other) for name in table.exact)
    assert longest <= countries.MAX_NAME_WORDS


def test_more_words_than_any_country_name_is_none_before_any_lookup(monkeypatch):
    def looked_up(*args):
        raise AssertionError("looked up")

    monkeypatch.setattr(countries._Names, "word_starts", looked_up)
    assert countries.country_resolve(" ".join(["ger"] * 13)) is None
    assert countries.country_resolve(" ".join(f"w{n}" for n in range(40))) is None


@pytest.mark.parametrize(
    ("one", "many"),
    [
        ("Germany", "Bundesrepublik Deutschland"),
        ("Germany", " ".join(["ger"] * 30)),  # refused in memory
        ("Germany", "\u249c" * 100),
        ("+4915112345678", "+49151123456789"),
        ("+4915112345678", "+4" + "9" * 98),  # not a possible number: refused before any statement
    ],
)
def test_any_destination_costs_at_most_the_statement_of_a_short_one(deck, one, many):
    short, long = sent(one), sent(many)
    assert len(short) == 1 and len(long) <= 1
    if long:
        assert long[0].count("%s") <= PREFIX_MAX_DIGITS + 1
