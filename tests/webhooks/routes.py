"""The webhooks routes, asked by the tests that walk every /v1 route (tests/support/routes.py)."""

from apps.webhooks import secrets
from apps.webhooks.models import Delivery, Event, WebhookEndpoint

MAX_STATEMENTS = 4


def examples(user) -> list[str]:
    endpoint = WebhookEndpoint.objects.create(
        user=user,
        livemode=True,
        url="https://hooks.example.com/in",
        enabled_events=["call.ended"],
        api_version="2026-10-01",
        secret_encrypted=secrets.encrypt(secrets.new_secret()),
        owner_kind="api_key",
        owner_credential_id="key_example",
    )
    event = Event.objects.create(
        user=user, livemode=True, type="call.ended", api_version="2026-10-01", data={"id": "call_x"}
    )
    # Readable with webhooks:manage alone; call.ended needs calls:read too.
    ping = Event.objects.create(user=user, livemode=True, type="ping", api_version="2026-10-01", data={})
    Delivery.objects.create(endpoint=endpoint, event=event)
    return [
        "/v1/webhook_endpoints",
        "/v1/webhook_endpoints?limit=1",
        f"/v1/webhook_endpoints?starting_after={endpoint.id}",
        f"/v1/webhook_endpoints/{endpoint.id}",
        "/v1/webhook_endpoints/we_nope",
        f"/v1/webhook_endpoints/{endpoint.id}/deliveries",
        f"/v1/webhook_endpoints/{endpoint.id}/deliveries?status=pending",
        f"/v1/webhook_endpoints/{endpoint.id}/deliveries?status=lost",
        "/v1/events",
        "/v1/events?type=call.ended",
        "/v1/events?type=nope",
        "/v1/events?created%5Bgte%5D=0",
        f"/v1/events/{event.id}",
        f"/v1/events/{ping.id}",
        "/v1/events/ev_nope",
    ]
