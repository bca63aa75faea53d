"""The reference's examples of the calls endpoints (apps/api_v1/examples.py)."""

from datetime import timedelta
from decimal import Decimal

from apps.api_v1.public import EXAMPLE_TIME, list_example, response_example

from .models import Call, Quote, Transcript, TranscriptStatus
from .serializers import CallSerializer, QuoteSerializer, transcript_object

# One caller, one callee and one rate in every example, so the reference's quote, call and ended
# call read as one story.
YOUR_NUMBER = "+34612345678"
CALLEE = {"to_number": "+4915112345678", "to_country": "DE"}
# Your phone rings first and the callee sees your number.
RINGS = {"your_number": YOUR_NUMBER, "caller_id": YOUR_NUMBER}
RATE = {"per_minute_amount_decimal": Decimal("9"), "first_seconds": 60, "next_seconds": 60, "currency": "usd"}


def _call() -> Call:
    call = Call(
        id="call_9Lq4Tz7WbK2mRx8NcV1pYs3E",
        livemode=True,
        created=EXAMPLE_TIME - timedelta(hours=1, minutes=7),
        direction="outbound",
        status="completed",
        from_number=YOUR_NUMBER,
        **CALLEE,
        contact_id="ct_5Hs8Nq2WzL7cKx4RbT9mPv1D",
        answered_at=EXAMPLE_TIME - timedelta(hours=1, minutes=6, seconds=48),
        ended_at=EXAMPLE_TIME - timedelta(hours=1, seconds=53),
        duration=355,
        **RATE,
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


QUOTE_ID = "quo_3Xn8Wb1QzK6cLt9RmV2pHs4D"
PLACED_CALL_ID = "call_6Tz2Kq8WbN4mLx1RcV7pYs5E"


@response_example("create_quote", body={"to": CALLEE["to_number"], "record": False})
def quote() -> dict:
    quote = Quote(
        id=QUOTE_ID,
        livemode=True,
        created=EXAMPLE_TIME,
        expires_at=EXAMPLE_TIME + timedelta(minutes=10),
        **CALLEE,
        label="Germany - Mobile (Telekom)",
        **RINGS,
        record=False,
        **RATE,
        max_duration=12120,
        max_amount=1818,
    )
    quote.spend_left_today = 2000
    return QuoteSerializer(quote, context={"now": EXAMPLE_TIME}).data


def _placed(**changes) -> Call:
    call = Call(
        id=PLACED_CALL_ID,
        livemode=True,
        created=EXAMPLE_TIME + timedelta(seconds=20),
        direction="outbound",
        status="ringing_you",
        from_number=YOUR_NUMBER,
        **CALLEE,
        **RATE,
        quote_id=QUOTE_ID,
        **RINGS,
        record=False,
        max_duration=12120,
        ringing_you_at=EXAMPLE_TIME + timedelta(seconds=20),
    )
    call.transcript_ref = None
    for name, value in changes.items():
        setattr(call, name, value)
    return call


@response_example("create_call", body={"quote": QUOTE_ID})
def placed() -> dict:
    call = _placed()
    return CallSerializer(call, context={"now": call.created}).data


@response_example("end_call")
def ended() -> dict:
    call = _placed(
        status="completed",
        end_reason="ended_by_request",
        ringing_at=EXAMPLE_TIME + timedelta(seconds=26),
        answered_at=EXAMPLE_TIME + timedelta(seconds=31),
        ended_at=EXAMPLE_TIME + timedelta(minutes=4, seconds=2),
        duration=211,
    )
    return CallSerializer(call, context={"now": EXAMPLE_TIME + timedelta(minutes=5)}).data


@response_example("create_transcript", body={"language": "auto"})
def transcript_requested() -> dict:
    transcript = Transcript(
        id="trs_4Jq8Wm2ZcT6yHn3Lk9Pb5Rx1",
        call_id=_placed().id,
        livemode=True,
        created=EXAMPLE_TIME + timedelta(minutes=6),
        language="",
        status=TranscriptStatus.QUEUED,
        currency="usd",
    )
    return transcript_object(transcript)
