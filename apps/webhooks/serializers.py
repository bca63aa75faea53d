"""The JSON of endpoints, events and deliveries (docs/design.md "Webhooks"); REST views and deliveries share them."""

from django.utils import timezone

from apps.core.timefmt import unix_seconds

from .models import Delivery, Event, WebhookEndpoint


def endpoint_payload(endpoint: WebhookEndpoint, *, secret: str | None = None, now=None) -> dict:
    """An endpoint; ``secret`` only in the answers of create and rotate."""
    now = now or timezone.now()
    previous = endpoint.previous_secret_expires_at
    return {
        "id": endpoint.id,
        "object": "webhook_endpoint",
        "url": endpoint.url,
        "description": endpoint.description or None,
        "enabled_events": list(endpoint.enabled_events),
        "status": "enabled" if endpoint.enabled else "disabled",
        "disabled_reason": None if endpoint.enabled else (endpoint.disabled_reason or None),
        "api_version": endpoint.api_version,
        "secret": secret,
        "previous_secret_expires_at": unix_seconds(previous) if previous and previous > now else None,
        "created": unix_seconds(endpoint.created),
        "livemode": endpoint.livemode,
    }


def deleted_endpoint_payload(endpoint_id: str) -> dict:
    return {"id": endpoint_id, "object": "webhook_endpoint", "deleted": True}


def event_payload(event: Event) -> dict:
    """The event object: the body of every delivery of it, byte for byte once encoded."""
    return {
        "id": event.id,
        "object": "event",
        "type": event.type,
        "created": unix_seconds(event.created),
        "api_version": event.api_version,
        "livemode": event.livemode,
        "data": {"object": event.data},
    }


def delivery_payload(delivery: Delivery) -> dict:
    return {
        "id": delivery.id,
        "object": "webhook_delivery",
        "endpoint": delivery.endpoint_id,
        "event": delivery.event_id,
        "event_type": delivery.event.type,
        "attempt": delivery.attempt,
        "manual": delivery.manual,
        "status": delivery.status,
        "response_status": delivery.response_status,
        "error": delivery.error or None,
        "scheduled_at": unix_seconds(delivery.scheduled_at),
        "finished_at": unix_seconds(delivery.finished_at),
        "next_attempt_at": unix_seconds(delivery.next_attempt_at),
        "created": unix_seconds(delivery.created),
        "livemode": delivery.event.livemode,
    }
