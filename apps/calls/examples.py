"""The reference's examples of the calls endpoints (apps/api_v1/examples.py)."""

from datetime import timedelta
from decimal import Decimal

from apps.api_v1.public import EXAMPLE_TIME, list_example, response_example

from .models import Call
from .serializers import CallSerializer


def _call() -> Call:
    call = Call(
        id="call_9Lq4Tz7WbK2mRx8NcV1pYs3E",
        livemode=True,
        created=EXAMPLE_TIME - timedelta(hours=1, minutes=7),
        direction="outbound",
        status="completed",
        from_number="+34612345678",
        to_number="+4915112345678",
        to_country="DE",
        contact_id="ct_5Hs8Nq2WzL7cKx4RbT9mPv1D",
        answered_at=EXAMPLE_TIME - timedelta(hours=1, minutes=6, seconds=48),
        ended_at=EXAMPLE_TIME - timedelta(hours=1, seconds=53),
        duration=355,
        per_minute_amount_decimal=Decimal("9"),
        first_seconds=60,
        next_seconds=60,
        currency="usd",
    )
    call.transcript_ref = "trs_8Vm3Qc6XzN1kLw5RtB2pHy7S"  # the list's annotation of the transcript's id
    return call


def _write(call: Call) -> dict:
    return CallSerializer(call, context={"now": EXAMPLE_TIME, "expand": ()}).data


@response_example("list_calls", query={"limit": 3, "direction": "outbound"})
def calls() -> dict:
    return list_example("/v1/calls", _write(_call()))


@response_example("retrieve_call")
def call() -> dict:
    return _write(_call())
