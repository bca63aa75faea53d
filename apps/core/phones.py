"""Phone numbers as every resource stores and says them: E.164 in, a country and a readable form out."""

import re
from functools import cache, lru_cache

import phonenumbers
from babel import Locale
from django.core.exceptions import ValidationError

_E164 = re.compile(r"\+[1-9][0-9]{1,14}")
# A query string decodes an unencoded "+" as a space (HTML forms' encoding, which Django's
# QueryDict follows), so "?to=+4915112345678" arrives as " 4915112345678".
# What every message about a number's format adds for callers of a URL (curl, a browser bar).
URL_PLUS_HINT = "In a URL, write + as %2B (with curl: -G --data-urlencode 'to=+4915112345678')."


def from_query(value: str | None) -> str | None:
    """A phone number (or any destination) as a query string brought it: leading spaces followed by
    a digit are the ``+`` the caller typed, restored, since a space there has no other reading;
    anything else is returned as given."""
    if value is None or not value.startswith(" "):
        return value
    rest = value.lstrip(" ")
    return "+" + rest if rest[:1].isdigit() else value


def parse_e164(value: str) -> phonenumbers.PhoneNumber:
    """A possible number written in E.164 (``+`` and up to 15 digits); ValidationError otherwise.

    Possible, not valid: new or fictional ranges (+44 7700 900xxx) are real entries of
    address books that phonenumbers does not know yet.
    """
    if not isinstance(value, str) or not _E164.fullmatch(value):
        raise ValidationError("Enter the number in E.164 format: + then the country code and number.", "e164")
    try:
        parsed = phonenumbers.parse(value, None)
    except phonenumbers.NumberParseException:
        parsed = None
    if parsed is None or not phonenumbers.is_possible_number(parsed):
        raise ValidationError(f"{value} is not a possible phone number.", "e164")
    return parsed


def country_of(parsed: phonenumbers.PhoneNumber) -> str:
    """ISO alpha-2, or "" for a number of no country (+800, +882); the country code's main
    country when the number is in a range phonenumbers does not place (+1 555 ...: "US")."""
    region = phonenumbers.region_code_for_number(parsed)
    if region is None:
        region = phonenumbers.region_code_for_country_code(parsed.country_code)
    return "" if region in (None, "ZZ", "001") else region


# Bounded: a page of calls repeats the same few numbers, and phonenumbers costs 15-25 us a call
# where a hit costs under one.
@lru_cache(maxsize=1024)
def readable(number: str) -> str:
    """ "+34 612 34 56 78" for reading out; the number as stored if it does not parse."""
    try:
        return phonenumbers.format_number(
            phonenumbers.parse(number, None), phonenumbers.PhoneNumberFormat.INTERNATIONAL
        )
    except phonenumbers.NumberParseException:
        return number


@cache
def english_territories() -> dict:
    """Babel's English names of countries and territories, by ISO alpha-2 code."""
    return dict(Locale.parse("en").territories)


def country_name(code: str) -> str:
    """The English name of an ISO alpha-2 code ("Germany"); the code itself if unknown."""
    return english_territories().get(code, code)
