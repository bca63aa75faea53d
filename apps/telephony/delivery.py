"""A carrier callback's events, applied once as durable work.

A carrier may send one callback several times (a retry after a timeout, a duplicate) and
in any order. Its events are written as one row keyed by the callback (``dedupe_key``), so
a second copy writes nothing, and the row delivers them in the order the carrier reported
them. The worker runs it in the carrier-events lane; a read of a live call runs its own
first (``Carrier.refresh``).
"""

from apps.jobs.public import enqueue

from .events import CarrierEvent, deliver

CARRIER_EVENT_JOB = "telephony.carrier_event"


def deliver_later(events: list[CarrierEvent], *, dedupe_key: str | None = None) -> None:
    if not events:
        return
    enqueue(
        CARRIER_EVENT_JOB,
        {"events": [event.as_payload() for event in events]},
        dedupe_key=dedupe_key,
        subject=events[0].subject,
    )


def play(payload: dict) -> None:
    for item in payload["events"]:
        deliver(CarrierEvent.from_payload(item))
