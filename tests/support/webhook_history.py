"""Webhook endpoints with a history of deliveries, made through the real services and worker:
the Webhooks page's tests (tests/dashboard) and the resend service's (tests/webhooks) share them."""

from datetime import timedelta

from apps.jobs.public import run_due
from apps.webhooks.models import Delivery
from apps.webhooks.public import publish
from tests.support.jobs import frozen


def make_endpoint(caller, url, events=("call.ended",)) -> dict:
    response = caller.post("/v1/webhook_endpoints", {"url": url, "enabled_events": list(events)})
    assert response.status_code == 201, response.content
    return response.json()


def call(n: int) -> dict:
    return {"id": f"call_{n:04d}", "object": "call", "status": "completed", "livemode": False}


def deliver_all(owner, count: int, *, start, first: int = 0, type_name: str = "call.ended") -> list:
    """Publish ``count`` test-mode events a second apart from ``start`` and run every attempt, retries
    included, on a controlled clock until nothing is due; returns the events, oldest first."""
    events = []
    with frozen(start) as clock:
        for n in range(count):
            clock.at = start + timedelta(seconds=n)
            events.append(publish(owner, type_name, call(first + n), livemode=False))
        run_due()
        while True:
            pending = Delivery.objects.filter(status="pending").order_by("scheduled_at").first()
            if pending is None:
                break
            clock.at = max(clock.at, pending.scheduled_at)
            run_due()
    return events
