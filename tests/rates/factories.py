from decimal import Decimal

import factory

from apps.rates.models import Rate


class RateFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Rate

    prefix = factory.Sequence(lambda n: f"49{n}")
    country = "DE"
    label = "Germany"
    currency = "usd"
    per_minute = Decimal("0.045")
    first_seconds = 60
    next_seconds = 60


# A small deck with the cases docs/design.md names: nested prefixes, NANP neighbours, mixed increments.
DECK = [
    ("49", "DE", "Germany", "0.012", 60, 60),
    ("4915", "DE", "Germany - Mobile", "0.045", 60, 60),
    ("49151", "DE", "Germany - Mobile (Telekom)", "0.09", 60, 60),
    ("44", "GB", "United Kingdom", "0.01", 60, 60),
    ("447", "GB", "United Kingdom - Mobile", "0.03", 60, 60),
    ("1", "US", "United States", "0.013", 1, 1),
    ("1876", "JM", "Jamaica", "0.15", 60, 60),
    ("1242", "BS", "Bahamas", "0.12", 60, 60),
    ("51", "PE", "Peru", "0.02", 60, 60),
    ("33", "FR", "France", "0.011", 30, 6),
    ("336", "FR", "France - Mobile", "0.04", 60, 60),
]


def make_deck(rows=DECK) -> list[Rate]:
    return [
        RateFactory(prefix=p, country=c, label=label, per_minute=Decimal(m), first_seconds=f, next_seconds=n)
        for p, c, label, m, f, n in rows
    ]


def germany_on_the_deck(query: str) -> dict:
    """The rate GET /v1/rates answers for ``query``, a name of Germany, on ``DECK``: an estimate over its
    three prefixes."""
    return {
        "object": "rate",
        "query": query,
        "to": None,
        "estimate": True,
        "country": "DE",
        "country_name": "Germany",
        "label": None,
        "prefix": None,
        "currency": "usd",
        "per_minute_amount_decimal": None,
        "per_minute_min_amount_decimal": "1.2",
        "per_minute_max_amount_decimal": "9",
        "billing_increment": {"first_seconds": 60, "next_seconds": 60},
        "next_step": "Give the full number in E.164 format, starting with +49, for the exact rate.",
        "livemode": True,
    }
