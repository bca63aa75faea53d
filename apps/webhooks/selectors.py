"""Reads of endpoints, events and deliveries: the one place that filters by account and mode."""

import re
from datetime import timedelta

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from . import events as types
from .models import Delivery, Event, WebhookEndpoint
from .serializers import event_payload
from .signing import body_of

# A malformed id (another prefix, a stray byte) never reaches the database.
_ENDPOINT_ID = re.compile(r"we_[0-9A-Za-z]{1,64}")
_EVENT_ID = re.compile(r"ev_[0-9A-Za-z]{1,64}")
_DELIVERY_ID = re.compile(r"dlv_[0-9A-Za-z]{1,64}")


def endpoints_of(*, user_id, livemode: bool) -> QuerySet[WebhookEndpoint]:
    return WebhookEndpoint.objects.filter(user_id=user_id, livemode=livemode)


def endpoint_list(*, principal) -> QuerySet[WebhookEndpoint]:
    return endpoints_of(user_id=principal.user.pk, livemode=principal.livemode)


def endpoint_get(*, principal, endpoint_id) -> WebhookEndpoint | None:
    if not isinstance(endpoint_id, str) or not _ENDPOINT_ID.fullmatch(endpoint_id):
        return None
    return endpoint_list(principal=principal).filter(pk=endpoint_id).first()


def endpoints_of_connection(*, user_id, client_id: str) -> list[WebhookEndpoint]:
    """The endpoints an app's connection made (its entry on the Connected apps page)."""
    return list(
        WebhookEndpoint.objects.filter(user_id=user_id, owner_kind="oauth", owner_credential_id=client_id).order_by(
            "-created", "-id"
        )
    )


def endpoints_by_connection(*, user_id, client_ids) -> dict[str, list[WebhookEndpoint]]:
    """``endpoints_of_connection`` for several apps at once, in one query, keyed by client id (apps
    with none are left out): the Connected apps page lists every app's endpoints at the same cost."""
    found: dict[str, list[WebhookEndpoint]] = {}
    if not client_ids:
        return found
    rows = WebhookEndpoint.objects.filter(
        user_id=user_id, owner_kind="oauth", owner_credential_id__in=list(client_ids)
    ).order_by("-created", "-id")
    for endpoint in rows:
        found.setdefault(endpoint.owner_credential_id, []).append(endpoint)
    return found


def _retained_since(now=None):
    return (now or timezone.now()) - timedelta(days=settings.WEBHOOK_EVENT_RETENTION_DAYS)


def readable_types(principal) -> list[str]:
    """The event types the caller's scopes let it read (events of other types read as absent)."""
    return [name for name in types.EVENT_TYPES if types.scopes_allow(name, principal.scopes)]


def event_list(*, principal, type_name: str | None = None, created_gte=None) -> QuerySet[Event]:
    rows = Event.objects.filter(
        user_id=principal.user.pk,
        livemode=principal.livemode,
        created__gte=_retained_since(),
        type__in=readable_types(principal),
    )
    if type_name is not None:
        rows = rows.filter(type=type_name)
    if created_gte is not None:
        rows = rows.filter(created__gte=created_gte)
    return rows


def event_get(*, principal, event_id) -> Event | None:
    if not isinstance(event_id, str) or not _EVENT_ID.fullmatch(event_id):
        return None
    return event_list(principal=principal).filter(pk=event_id).first()


def delivery_list(*, endpoint: WebhookEndpoint, status: str | None = None) -> QuerySet[Delivery]:
    rows = Delivery.objects.filter(endpoint=endpoint).select_related("event")
    if status is not None:
        rows = rows.filter(status=status)
    return rows


# The signed-in account's own pages (apps/dashboard) read both modes at once: the account, not a
# credential, is the caller, so each read here filters by the account alone.


def endpoint_list_for_account(*, user_id) -> list[WebhookEndpoint]:
    """Every endpoint of the account, live mode first, newest first within a mode."""
    return list(WebhookEndpoint.objects.filter(user_id=user_id).order_by("-livemode", "-created", "-id"))


def endpoint_get_for_account(*, user_id, endpoint_id) -> WebhookEndpoint | None:
    if not isinstance(endpoint_id, str) or not _ENDPOINT_ID.fullmatch(endpoint_id):
        return None
    return WebhookEndpoint.objects.filter(user_id=user_id, pk=endpoint_id).first()


def delivery_get_for_account(*, user_id, delivery_id) -> Delivery | None:
    if not isinstance(delivery_id, str) or not _DELIVERY_ID.fullmatch(delivery_id):
        return None
    return (
        Delivery.objects.select_related("endpoint", "event").filter(endpoint__user_id=user_id, pk=delivery_id).first()
    )


def delivery_list_recent(*, endpoint: WebhookEndpoint, limit: int) -> list[Delivery]:
    """The endpoint's latest attempts, newest first (scheduled retries included)."""
    return list(delivery_list(endpoint=endpoint).order_by("-created", "-id")[:limit])


def endpoint_state(endpoint: WebhookEndpoint) -> str:
    """``enabled``, ``disabled``, or ``failing``: enabled, and every attempt since ``failing_since`` failed."""
    if not endpoint.enabled:
        return "disabled"
    return "failing" if endpoint.failing_since is not None else "enabled"


def delivery_body(delivery: Delivery) -> str:
    """The request body every attempt of the delivery's event sends, byte for byte (the event is
    stored once and encoded the same way at each attempt)."""
    return body_of(event_payload(delivery.event)).decode()
