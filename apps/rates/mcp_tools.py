"""svc_get_rate (docs/spec.md 4.7): the REST rate, plus display strings and a line to read aloud."""

from apps.core.errors import ApiError
from apps.core.money import display, to_minor
from apps.core.phones import readable
from apps.mcp_bridge.public import ToolFailure, ToolSpec, register

from .selectors import MAX_QUERY, RateQuote, rate_quote
from .serializers import RateSerializer

NULLABLE_STRING = {"type": ["string", "null"]}


def billing_phrase(first: int | None, step: int | None) -> str:
    """ "billed per full minute", "billed per second", "billed for the first 30 seconds, then per 6 seconds"."""
    if first is None or step is None:
        return "billing increments vary by number"

    def span(seconds: int) -> str:
        if seconds % 60 == 0:
            minutes = seconds // 60
            return "minute" if minutes == 1 else f"{minutes} minutes"
        return "second" if seconds == 1 else f"{seconds} seconds"

    if first == step:
        return "billed per full minute" if step == 60 else f"billed per {span(step)}"
    return f"billed for the first {span(first)}, then per {span(step)}"


def _display(major, currency: str) -> str | None:
    return None if major is None else display(to_minor(major, currency), currency)


def _spoken(quote: RateQuote, rate: dict, shown: dict) -> str:
    billing = billing_phrase(quote.first_seconds, quote.next_seconds)
    if not quote.estimate:
        return (
            f"Calls to {readable(quote.to)} ({rate['label']}) cost {shown['per_minute_display']} a minute, {billing}."
        )
    low, high = shown["per_minute_min_display"], shown["per_minute_max_display"]
    cost = f"{low} a minute" if low == high else f"{low} to {high} a minute depending on the number"
    return f"Calls to {rate['country_name']} cost {cost}; tell me the full number for the exact rate."


def get_rate(*, principal, arguments) -> dict:
    try:
        quote = rate_quote(query=arguments["destination"])
    except ApiError as error:
        # The same sentence REST gives (it names no parameter), as an isError result.
        raise ToolFailure(error.message) from None
    rate = RateSerializer(quote, context={"livemode": principal.livemode}).data
    low, high = _display(quote.per_minute_min, quote.currency), _display(quote.per_minute_max, quote.currency)
    # A country's is its range: an assistant reading this one field still says what a call costs.
    per_minute = _display(quote.per_minute, quote.currency) or (low if low == high else f"{low} to {high}")
    shown = {
        "per_minute_display": per_minute,
        "per_minute_min_display": low,
        "per_minute_max_display": high,
    }
    return {**rate, **shown, "spoken": _spoken(quote, rate, shown)}


OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "object": {"type": "string", "enum": ["rate"]},
        "query": {"type": "string", "description": "The destination as given."},
        "to": {**NULLABLE_STRING, "description": "The number in E.164 format; null for a country."},
        "estimate": {"type": "boolean", "description": "True for a country: a range, not one number's rate."},
        "country": {"type": "string", "description": "ISO 3166-1 alpha-2 code."},
        "country_name": {"type": "string"},
        "label": {**NULLABLE_STRING, "description": 'The matched prefix\'s name ("Germany - Mobile").'},
        "prefix": {**NULLABLE_STRING, "description": "The matched prefix (digits); null for a country."},
        "currency": {"type": "string", "description": "Lowercase ISO 4217 code."},
        "per_minute_amount_decimal": {
            **NULLABLE_STRING,
            "description": 'Per minute in minor units as a decimal string ("4.5" is 4.5 cents); null for a country.',
        },
        "per_minute_min_amount_decimal": {"type": "string"},
        "per_minute_max_amount_decimal": {"type": "string"},
        "billing_increment": {
            "type": ["object", "null"],
            "properties": {"first_seconds": {"type": "integer"}, "next_seconds": {"type": "integer"}},
            "required": ["first_seconds", "next_seconds"],
            "additionalProperties": False,
            "description": "Seconds billed first and then per block; null when a country's prefixes differ.",
        },
        "next_step": {**NULLABLE_STRING, "description": "For a country, what to ask the user for the exact rate."},
        "livemode": {"type": "boolean"},
        "per_minute_display": {
            "type": "string",
            "description": 'The rate to show ("$0.045"); for a country, its range ("$0.02 to $0.045").',
        },
        "per_minute_min_display": {"type": "string", "description": "The lowest rate to show."},
        "per_minute_max_display": {"type": "string", "description": "The highest rate to show."},
        "spoken": {"type": "string", "description": "One sentence with the price, for reading aloud."},
    },
    "additionalProperties": False,
}
OUTPUT_SCHEMA["required"] = list(OUTPUT_SCHEMA["properties"])

svc_get_rate = register(
    ToolSpec(
        name="svc_get_rate",
        title="Get a call rate",
        description=(
            "What a call costs per minute. Give a phone number in E.164 format (+4915112345678) for its exact "
            "rate, or a country (a name in any common language, or its ISO code) for the range of its rates; "
            "then ask the user for the full number. Rates are the operator's prices, the same for every account."
        ),
        scope="rates:read",
        handler=get_rate,
        input_schema={
            "type": "object",
            "properties": {
                "destination": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_QUERY,
                    "description": "A phone number in E.164 format, or a country name or ISO 3166-1 alpha-2 code.",
                }
            },
            "required": ["destination"],
            "additionalProperties": False,
        },
        output_schema=OUTPUT_SCHEMA,
    )
)
