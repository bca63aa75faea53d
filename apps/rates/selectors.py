"""Reads of the rate deck. The deck is the operator's price list, the same for every account,
so nothing here filters by user or mode; the answer's ``livemode`` is the caller's."""

from dataclasses import dataclass
from decimal import Decimal

import phonenumbers
from django.core.exceptions import ValidationError
from django.db.models import Max, Min, QuerySet

from apps.core.echo import echoed
from apps.core.errors import ApiError
from apps.core.phones import URL_PLUS_HINT, canonical, country_name
from apps.core.sql import CompiledQuery

from .countries import Ambiguous, country_resolve
from .models import PREFIX_MAX_DIGITS, Rate

PARAM = "to"
MAX_QUERY = 100
# Candidates named in an ambiguity message; "a" alone starts twenty names.
MAX_CANDIDATES = 8
EXAMPLE = "+4915112345678"
NUMBER_PUNCTUATION = str.maketrans("", "", " -.()/")


@dataclass(frozen=True)
class RateQuote:
    """What a destination costs: one prefix's rate for a number, a range for a country."""

    query: str
    estimate: bool
    country: str
    currency: str
    per_minute_min: Decimal
    per_minute_max: Decimal
    # A number's rate only (None for a country's estimate):
    to: str | None = None
    prefix: str | None = None
    label: str | None = None
    per_minute: Decimal | None = None
    # None for an estimate over prefixes billed differently.
    first_seconds: int | None = None
    next_seconds: int | None = None

    @property
    def next_step(self) -> str | None:
        if not self.estimate:
            return None
        code = phonenumbers.country_code_for_region(self.country)
        starting = f", starting with +{code}," if code else ""
        return f"Give the full number in E.164 format{starting} for the exact rate."


def rate_for_number(number: str) -> Rate | None:
    """The rate of the longest deck prefix of a canonical E.164 number ("+4915112345678"), or None.

    One indexed statement: every prefix of the digits with IN. All candidates are
    prefixes of one string, so the longest is also the greatest: ORDER BY prefix
    DESC LIMIT 1, no LENGTH() needed. The IN list always has ``PREFIX_MAX_DIGITS``
    items, so the caller's number decides the values only, never the statement's
    text: a short number's other items are its digits padded with "x", which no
    prefix is, each of its own length (Django's IN drops repeated values).
    """
    prefixes = prefix_candidates(number)
    return LONGEST_PREFIX.first(**prefixes) if prefixes else None


def prefix_candidates(number: str) -> dict[str, str]:
    """The values of ``longest_prefix`` for a canonical number (empty when it has no digits)."""
    digits = "".join(c for c in number if c.isdigit())[:PREFIX_MAX_DIGITS]
    if not digits:
        return {}
    return {f"digits_{n}": digits[:n].ljust(n, "x") for n in range(1, PREFIX_MAX_DIGITS + 1)}


def longest_prefix(**prefixes) -> QuerySet[Rate]:
    """The rate of the longest prefix among ``prefix_candidates``, at most one row: a statement another
    app may annotate, to read the rate and what it checks with it at once (apps/calls/usage.py)."""
    candidates = [prefixes[f"digits_{n}"] for n in range(1, PREFIX_MAX_DIGITS + 1)]
    return Rate.objects.filter(prefix__in=candidates).order_by("-prefix")[:1]


# Compiled once (apps/core/sql.py): building the IN list cost more than running it.
LONGEST_PREFIX = CompiledQuery(longest_prefix)


def rate_country_range(*, country: str) -> dict | None:
    """Min and max per minute over a country's prefixes (one statement), or None when it has none.

    ``first_seconds``/``next_seconds`` are None unless every prefix bills alike.
    """
    found = (
        Rate.objects.filter(country=country)
        .values("currency")
        .annotate(
            low=Min("per_minute"),
            high=Max("per_minute"),
            first_low=Min("first_seconds"),
            first_high=Max("first_seconds"),
            next_low=Min("next_seconds"),
            next_high=Max("next_seconds"),
        )
        .order_by("currency")
    )
    rows = list(found[:1])
    if not rows:
        return None
    row = rows[0]
    uniform = row["first_low"] == row["first_high"] and row["next_low"] == row["next_high"]
    return {
        "currency": row["currency"],
        "per_minute_min": row["low"],
        "per_minute_max": row["high"],
        "first_seconds": row["first_low"] if uniform else None,
        "next_seconds": row["next_low"] if uniform else None,
    }


def _invalid(message: str) -> ApiError:
    return ApiError("invalid_request", message, param=PARAM)


def _number_quote(query: str) -> RateQuote:
    try:
        number = phonenumbers.parse(query, None)
        # Priced as the number it dials: +44 07700 ... is +44 7700 ... (apps.core.phones).
        e164 = canonical(phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164))
    except (phonenumbers.NumberParseException, ValidationError):
        raise _invalid(
            f"{echoed(query.strip())} is not a possible phone number. Give it in E.164 format, such as {EXAMPLE}."
        ) from None
    rate = rate_for_number(e164)
    if rate is None:
        raise ApiError("not_found", f"There is no rate for {e164}: calls to it are not offered.", param=PARAM)
    return RateQuote(
        query=query,
        estimate=False,
        country=rate.country,
        currency=rate.currency,
        per_minute_min=rate.per_minute,
        per_minute_max=rate.per_minute,
        to=e164,
        prefix=rate.prefix,
        label=rate.label,
        per_minute=rate.per_minute,
        first_seconds=rate.first_seconds,
        next_seconds=rate.next_seconds,
    )


def _country_quote(query: str, *, from_url: bool) -> RateQuote:
    text = query.strip()
    quoted = echoed(text)
    if text.translate(NUMBER_PUNCTUATION).isdigit():
        hint = f" {URL_PLUS_HINT}" if from_url else ""
        raise _invalid(f"Give numbers in E.164 format, with + and the country code, such as {EXAMPLE}.{hint}")
    try:
        country = country_resolve(text)
    except Ambiguous as ambiguous:
        named = [f"{country_name(code)} ({code})" for code in ambiguous.codes]
        more = len(named) - MAX_CANDIDATES
        listed = ", ".join(named[:MAX_CANDIDATES]) + (f" and {more} more" if more > 0 else "")
        raise _invalid(
            f'"{quoted}" matches several countries: {listed}. '
            "Give the country's full name or ISO code, or the full number in E.164 format."
        ) from None
    if country is None:
        raise _invalid(
            f'"{quoted}" is neither a phone number in E.164 format (such as {EXAMPLE}) '
            "nor a country name or ISO code (such as Germany or DE)."
        )
    found = rate_country_range(country=country)
    if found is None:
        raise ApiError(
            "not_found", f"There is no rate for {country_name(country)}: calls there are not offered.", param=PARAM
        )
    return RateQuote(query=query, estimate=True, country=country, **found)


def rate_quote(*, query: str | None, from_url: bool = False) -> RateQuote:
    """The rate for ``query``: an E.164 number (its longest prefix) or a country (an estimate).

    ``from_url``: the query came in a URL, so a message about the number's format says how to
    write ``+`` there (the caller has already restored a ``+`` sent unencoded: phones.from_query).

    Raises ``ApiError``: 400 ``invalid_request`` (param ``to``) for a missing, malformed or
    ambiguous destination, 404 ``not_found`` when the deck prices no such destination.
    """
    if query is None or not query.strip():
        raise _invalid(
            f"A destination is required: a phone number in E.164 format ({EXAMPLE}) or a country (DE, Germany)."
        )
    if len(query) > MAX_QUERY:
        raise _invalid(f"A destination is at most {MAX_QUERY} characters: a phone number or a country.")
    if query.strip().startswith("+"):
        return _number_quote(query)
    return _country_quote(query, from_url=from_url)
