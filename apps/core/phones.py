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


# What people type around the digits of a number they write with its country code: spaces,
# dashes, dots, slashes and parentheses ("+44 (0)20 7183-8750"). Letters never: phonenumbers
# would read them as keypad digits.
_TYPED = re.compile(r"\+[0-9][0-9 ().\-/]{1,40}")
_SEPARATORS = str.maketrans("", "", " ().-/")
# Formatting and parsing again can drop a further trunk prefix (+49 0 0900... -> +49 0900... ->
# +49 900...): the canonical form is where it stops changing, reached within a few rounds.
_MAX_ROUNDS = 4


def parse_e164(value: str, *, typed: bool = False) -> phonenumbers.PhoneNumber:
    """A possible number written in E.164 (``+`` and up to 15 digits), as its canonical number;
    ValidationError otherwise. ``typed`` also accepts the separators people type between the
    digits (spaces, dashes, dots, slashes, parentheses).

    Canonical: phonenumbers' E.164 of it, so a trunk zero after the country code (+44 07...),
    or a repeated country code (+1 1 202...), names the number it dials and is priced, limited
    and blocked as that. Possible, not valid: new or fictional ranges (+44 7700 900xxx) are
    real entries of address books that phonenumbers does not know yet.
    """
    if not isinstance(value, str):
        raise ValidationError("Enter the number in E.164 format: + then the country code and number.", "e164")
    text = value.strip() if typed else value
    if typed and _TYPED.fullmatch(text):
        text = text.translate(_SEPARATORS)
    if not _E164.fullmatch(text):
        raise ValidationError("Enter the number in E.164 format: + then the country code and number.", "e164")
    parsed = _canonical_parse(text)
    if parsed is None or not phonenumbers.is_possible_number(parsed):
        raise ValidationError(f"{text} is not a possible phone number.", "e164")
    return parsed


def _canonical_parse(text: str) -> phonenumbers.PhoneNumber | None:
    try:
        parsed = phonenumbers.parse(text, None)
        for _ in range(_MAX_ROUNDS):
            again = phonenumbers.parse(e164(parsed), None)
            if again == parsed:
                break
            parsed = again
    except phonenumbers.NumberParseException:
        return None
    return parsed


def e164(parsed: phonenumbers.PhoneNumber) -> str:
    """The number as every row stores it and every answer echoes it."""
    return phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.E164)


def canonical(value: str, *, typed: bool = False) -> str:
    """``value``'s canonical E.164 (``parse_e164``'s rules); ValidationError when it is not a number."""
    return e164(parse_e164(value, typed=typed))


def canonical_or_none(value) -> str | None:
    """The canonical E.164 of a stored or given number, or None when it does not parse as one
    (an alphanumeric sender, a malformed filter): for look-ups, which then simply find nothing."""
    try:
        return canonical(value)
    except ValidationError:
        return None


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


def canonicalize_stored(model, *fields: str) -> dict[str, str]:
    """Rewrite every stored number of ``model``'s ``fields`` that is not canonical (a data migration's
    step: rows written before numbers were made canonical keep being found, counted and priced as
    the number they dial). Reads each field's distinct values, never every row. Returns what
    changed, stored form to canonical. Values that are not numbers (an alphanumeric sender) stay."""
    rewritten = {}
    manager = model._default_manager
    for name in fields:
        for value in manager.order_by().values_list(name, flat=True).distinct().iterator():
            stored = canonical_or_none(value) if value else None
            if stored is not None and stored != value:
                manager.filter(**{name: value}).update(**{name: stored})
                rewritten[value] = stored
    return rewritten
