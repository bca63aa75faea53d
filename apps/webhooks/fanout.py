"""Events made, and each endpoint's attempts: written in the transaction of the change that causes them.

``publish`` records an event and, for every enabled endpoint of the account and
mode that subscribes to its type and whose credential may receive it now, a
first delivery attempt and the durable work that sends it (apps.jobs): one job
per attempt, so a slow receiver holds only its own attempt.
"""

from django.conf import settings
from django.utils import timezone

from apps.api_v1.public import CURRENT_VERSION
from apps.credentials.standing import credential_scopes

from . import events as types
from .models import Delivery, Event, WebhookEndpoint

JOB_KIND = "webhooks.deliver"


def enqueue_attempt(delivery: Delivery) -> None:
    from apps.jobs.public import enqueue

    enqueue(
        JOB_KIND,
        {"delivery": delivery.pk},
        run_at=delivery.scheduled_at,
        dedupe_key=delivery.pk,
        subject=delivery.endpoint_id,
        tenant=str(delivery.endpoint.user_id),
    )


def schedule_first_attempt(*, event: Event, endpoint: WebhookEndpoint, manual: bool = False, now=None) -> Delivery:
    now = now or timezone.now()
    delivery = Delivery.objects.create(
        endpoint=endpoint, event=event, attempt=1, manual=manual, scheduled_at=now, created=now
    )
    enqueue_attempt(delivery)
    return delivery


def publish(owner, type_name: str, obj: dict, *, livemode: bool | None = None, now=None) -> Event:
    """Record a ``type_name`` event about ``obj`` and schedule its deliveries, in the caller's transaction.

    ``owner`` is a Principal (its user and mode are the event's) or a user (or its
    primary key), then with ``livemode``. ``obj`` is the object as its serializer
    writes it; thin types keep only their listed fields.
    """
    if type_name not in types.EVENT_TYPES or type_name == "ping":
        raise ValueError(f"not a publishable event type: {type_name!r}")
    user_id, livemode = _account(owner, livemode)
    now = now or timezone.now()
    data = types.thin(type_name, obj)
    event = Event.objects.create(
        user_id=user_id, livemode=livemode, type=type_name, api_version=CURRENT_VERSION, data=data, created=now
    )
    endpoints = WebhookEndpoint.objects.filter(user_id=user_id, livemode=livemode, enabled=True)
    for endpoint in endpoints:
        if not types.subscribed(endpoint.enabled_events, type_name):
            continue
        scopes = credential_scopes(
            kind=endpoint.owner_kind, user_id=user_id, credential_id=endpoint.owner_credential_id
        )
        if scopes is None or not types.may_receive(
            type_name=type_name, scopes=scopes, user_id=user_id, livemode=livemode, data=data
        ):
            continue
        schedule_first_attempt(event=event, endpoint=endpoint, now=now)
    return event


def _account(owner, livemode: bool | None) -> tuple:
    user = getattr(owner, "user", None)
    if user is not None and hasattr(owner, "livemode"):  # a Principal
        return user.pk, owner.livemode if livemode is None else livemode
    if livemode is None:
        raise TypeError("publish(user, ...) needs livemode=")
    return getattr(owner, "pk", owner), livemode


def purge_events(*, now=None) -> int:
    """Events past their retention, with their deliveries (manage.py purge_webhook_events)."""
    from datetime import timedelta

    cutoff = (now or timezone.now()) - timedelta(days=settings.WEBHOOK_EVENT_RETENTION_DAYS)
    _, deleted = Event.objects.filter(created__lt=cutoff).delete()
    return deleted.get(Event._meta.label, 0)
