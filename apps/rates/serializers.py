"""The ``rate`` object (docs/design.md, Phase 2): one shape for a number's rate and a country's estimate."""

from rest_framework import serializers

from apps.core.money import decimal_string, to_minor
from apps.core.phones import country_name

from .selectors import RateQuote

DECIMAL_HELP = 'Per minute, in minor units of currency, as a decimal string ("4.5" is 4.5 cents).'


class BillingIncrementSerializer(serializers.Serializer):
    first_seconds = serializers.IntegerField(help_text="Seconds billed for the first block of an answered call.")
    next_seconds = serializers.IntegerField(help_text="Seconds billed for each block started after the first.")


class RateSerializer(serializers.Serializer):
    """Built from a ``RateQuote``; ``context["livemode"]`` is the caller's mode."""

    object = serializers.ChoiceField(choices=["rate"])
    query = serializers.CharField(help_text="The to parameter as given.")
    to = serializers.CharField(allow_null=True, help_text="The number in E.164 format; null for a country.")
    estimate = serializers.BooleanField(help_text="True when a country was asked: a range, not one number's rate.")
    country = serializers.CharField(help_text="ISO 3166-1 alpha-2 code of the rate's country.")
    country_name = serializers.CharField(help_text="The country's name in English.")
    label = serializers.CharField(allow_null=True, help_text='The matched prefix\'s name ("Germany - Mobile").')
    prefix = serializers.CharField(allow_null=True, help_text="The longest deck prefix matching the number (digits).")
    currency = serializers.CharField(help_text="Lowercase ISO 4217 code.")
    per_minute_amount_decimal = serializers.CharField(allow_null=True, help_text=DECIMAL_HELP + " Null for a country.")
    per_minute_min_amount_decimal = serializers.CharField(help_text="The lowest rate of the country's prefixes.")
    per_minute_max_amount_decimal = serializers.CharField(help_text="The highest rate of the country's prefixes.")
    billing_increment = BillingIncrementSerializer(
        allow_null=True, help_text="Null for a country whose prefixes are billed in different increments."
    )
    next_step = serializers.CharField(
        allow_null=True, help_text="For an estimate, what to send for the exact rate; null otherwise."
    )
    livemode = serializers.BooleanField(help_text="The caller's mode; the deck is the same in both.")

    def to_representation(self, quote: RateQuote) -> dict:
        currency = quote.currency

        def minor(major):
            return None if major is None else decimal_string(to_minor(major, currency))

        increment = None
        if quote.first_seconds is not None and quote.next_seconds is not None:
            increment = {"first_seconds": quote.first_seconds, "next_seconds": quote.next_seconds}
        return {
            "object": "rate",
            "query": quote.query,
            "to": quote.to,
            "estimate": quote.estimate,
            "country": quote.country,
            "country_name": country_name(quote.country),
            "label": quote.label,
            "prefix": quote.prefix,
            "currency": currency,
            "per_minute_amount_decimal": minor(quote.per_minute),
            "per_minute_min_amount_decimal": minor(quote.per_minute_min),
            "per_minute_max_amount_decimal": minor(quote.per_minute_max),
            "billing_increment": increment,
            "next_step": quote.next_step,
            "livemode": self.context["livemode"],
        }
