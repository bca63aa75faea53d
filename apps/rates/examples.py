"""The reference's example of GET /v1/rates (apps/api_v1/examples.py)."""

from decimal import Decimal

from apps.api_v1.public import response_example

from .selectors import EXAMPLE, RateQuote
from .serializers import RateSerializer


@response_example("retrieve_rate", query={"to": EXAMPLE})
def rate() -> dict:
    quote = RateQuote(
        query=EXAMPLE,
        estimate=False,
        country="DE",
        currency="usd",
        per_minute_min=Decimal("0.09"),
        per_minute_max=Decimal("0.09"),
        to=EXAMPLE,
        prefix="49151",
        label="Germany - Mobile (Telekom)",
        per_minute=Decimal("0.09"),
        first_seconds=60,
        next_seconds=60,
    )
    return RateSerializer(quote, context={"livemode": True}).data
