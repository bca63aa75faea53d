"""Resend what failed: every event an endpoint missed since a moment, redelivered once each.

For an endpoint that was down: the account picks when it went down, and each event whose
latest attempt to the endpoint since then failed, with nothing of it still due and no
success, gets one redelivery (the same as ``POST /v1/events/{id}/redeliver``), as durable
work. An event already queued again is pending, so pressing twice queues nothing twice;
the endpoint's row is locked while choosing, so two presses at once do not either. At most
``RESEND_LIMIT`` a press: the rest are counted, and the next press queues them.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.core.errors import ApiError

from .delivery import redeliver
from .events import ALL
from .models import Delivery, DeliveryStatus, Event, WebhookEndpoint

RESEND_LIMIT = 100


@dataclass(frozen=True)
class Resent:
    queued: int
    remaining: int  # failed since then too, past the limit: the next press queues them
    since: datetime  # the moment used: the one asked for, or the oldest event still kept


def deliveries_resend_failed(*, endpoint: WebhookEndpoint, since: datetime, now=None) -> Resent:
    """Queue one redelivery of each event that failed to reach ``endpoint`` since ``since``."""
    now = now or timezone.now()
    if since > now:
        raise ApiError("invalid_request", "Choose a moment in the past.", param="since")
    since = max(since, now - timedelta(days=settings.WEBHOOK_EVENT_RETENTION_DAYS))
    if not endpoint.enabled:
        raise ApiError("invalid_request", "This endpoint is disabled; enable it before redelivering.", param="endpoint")
    with transaction.atomic():
        endpoint = WebhookEndpoint.objects.select_for_update().get(pk=endpoint.pk)
        attempts = Delivery.objects.filter(endpoint=endpoint)
        failed = attempts.filter(status=DeliveryStatus.FAILED, finished_at__gte=since).values("event_id")
        settled = attempts.filter(status__in=[DeliveryStatus.PENDING, DeliveryStatus.SUCCEEDED]).values("event_id")
        missed = Event.objects.filter(pk__in=failed).exclude(pk__in=settled)
        if ALL not in endpoint.enabled_events:  # a type it no longer subscribes to is not sent again
            missed = missed.filter(type__in=[*endpoint.enabled_events, "ping"])
        chosen = list(missed.order_by("created", "id")[: RESEND_LIMIT + 1])
        for event in chosen[:RESEND_LIMIT]:
            redeliver(event=event, endpoint=endpoint)
        # Counted after queueing: what was just queued is pending now, so only the rest is left.
        remaining = missed.count() if len(chosen) > RESEND_LIMIT else 0
    return Resent(queued=min(len(chosen), RESEND_LIMIT), remaining=remaining, since=since)
