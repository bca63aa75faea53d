"""The reference's examples of the webhook and event endpoints (apps/api_v1/examples.py)."""

from datetime import timedelta

from apps.api_v1.public import EXAMPLE_TIME, list_example, response_example

from .models import Delivery, Event, WebhookEndpoint
from .serializers import deleted_endpoint_payload, delivery_payload, endpoint_payload, event_payload

ENDPOINT_ID = "we_4Tn9Qb2XkW7cLm5RzH1pVs8D"
EVENT_ID = "ev_7Pk3Wc9NzQ2xLt6RbM1vHy4S"
# Not a secret of any endpoint: the shape of one.
SECRET = "whsec_RVhBTVBMRW9ubHlOb3RBU2VjcmV0MDAwMDAwMDAwMDA="
CREATE = {
    "url": "https://example.com/hooks/telephony",
    "enabled_events": ["call.ended", "balance.low"],
    "description": "Call log sync",
}


def _endpoint(**changes) -> WebhookEndpoint:
    endpoint = WebhookEndpoint(
        id=ENDPOINT_ID,
        livemode=True,
        url=CREATE["url"],
        description=CREATE["description"],
        enabled_events=list(CREATE["enabled_events"]),
        enabled=True,
        api_version="2026-10-01",
        created=EXAMPLE_TIME - timedelta(days=2),
    )
    for name, value in changes.items():
        setattr(endpoint, name, value)
    return endpoint


def _event(**changes) -> Event:
    event = Event(
        id=EVENT_ID,
        livemode=True,
        type="balance.low",
        api_version="2026-10-01",
        data={"object": "balance", "amount": 180, "currency": "usd"},
        created=EXAMPLE_TIME,
    )
    for name, value in changes.items():
        setattr(event, name, value)
    return event


def _delivery(**changes) -> Delivery:
    delivery = Delivery(
        id="dlv_2Hq8Lz5WcN9kRt3XbV7mPs1D",
        endpoint_id=ENDPOINT_ID,
        event=_event(),
        attempt=1,
        status="succeeded",
        response_status=200,
        scheduled_at=EXAMPLE_TIME,
        finished_at=EXAMPLE_TIME + timedelta(seconds=1),
        created=EXAMPLE_TIME,
    )
    for name, value in changes.items():
        setattr(delivery, name, value)
    return delivery


def _write(endpoint: WebhookEndpoint, secret: str | None = None) -> dict:
    return endpoint_payload(endpoint, secret=secret, now=EXAMPLE_TIME)


@response_example("list_webhook_endpoints")
def endpoints() -> dict:
    return list_example("/v1/webhook_endpoints", _write(_endpoint()))


@response_example("create_webhook_endpoint", body=CREATE)
def endpoint_created() -> dict:
    return _write(_endpoint(), SECRET)


@response_example("retrieve_webhook_endpoint")
def endpoint() -> dict:
    return _write(_endpoint())


@response_example("update_webhook_endpoint", body={"enabled_events": ["call.ended"]})
def endpoint_updated() -> dict:
    return _write(_endpoint(enabled_events=["call.ended"]))


@response_example("delete_webhook_endpoint")
def endpoint_deleted() -> dict:
    return deleted_endpoint_payload(ENDPOINT_ID)


@response_example("rotate_webhook_endpoint_secret", body={"expires_in": 86400})
def endpoint_rotated() -> dict:
    return _write(_endpoint(previous_secret_expires_at=EXAMPLE_TIME + timedelta(days=1)), SECRET)


@response_example("test_webhook_endpoint", path={"endpoint_id": ENDPOINT_ID})
def endpoint_pinged() -> dict:
    return event_payload(_event(type="ping", data={"id": ENDPOINT_ID, "object": "webhook_endpoint"}))


@response_example("list_webhook_deliveries", query={"status": "failed"}, path={"endpoint_id": ENDPOINT_ID})
def deliveries() -> dict:
    failed = _delivery(
        status="failed", response_status=500, error="HTTP 500", next_attempt_at=EXAMPLE_TIME + timedelta(minutes=5)
    )
    return list_example(f"/v1/webhook_endpoints/{ENDPOINT_ID}/deliveries", delivery_payload(failed))


@response_example("list_events", query={"type": "balance.low"})
def events() -> dict:
    return list_example("/v1/events", event_payload(_event()))


@response_example("retrieve_event")
def event() -> dict:
    return event_payload(_event())


@response_example("redeliver_event", body={"endpoint": ENDPOINT_ID}, path={"event_id": EVENT_ID})
def event_redelivered() -> dict:
    return delivery_payload(_delivery(manual=True, status="pending", response_status=None, finished_at=None))
