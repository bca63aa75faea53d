"""One delivery attempt: re-check, sign, POST, record, and schedule the next attempt if it failed.

Standard Webhooks 1.0: ``webhook-id`` (the event id, the same on every attempt),
``webhook-timestamp`` (this attempt's Unix time), ``webhook-signature`` (one
``v1,`` signature per live secret). The URL is resolved and guarded at every
attempt (apps/core/egress.py: public addresses only, loopback in test mode,
connected to the checked address, no redirect), within one 10 s deadline.

Retries after a failure: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, each ±10 %;
test mode stops after the 5 min one. A ``Retry-After`` on 429 or 503 brings the
next attempt forward to it, never later than the slot. 410 disables the
endpoint; an endpoint whose attempts have all failed for 5 days is disabled
(``failing``) and its owner emailed. A success clears the run of failures.
"""

import functools
import logging
import random
import time
from dataclasses import dataclass, replace
from datetime import timedelta
from email.utils import parsedate_to_datetime

from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.core import egress
from apps.core.errors import ApiError
from apps.jobs.public import finish_with

from . import events as types
from . import secrets, services, urls_check
from .fanout import enqueue_attempt
from .models import Delivery, DeliveryStatus, DisabledReason, WebhookEndpoint
from .serializers import event_payload
from .signing import body_of, signature_header

log = logging.getLogger(__name__)

RETRY_DELAYS = (5, 300, 1800, 7200, 18000, 36000, 36000)
TEST_MODE_RETRY_DELAYS = tuple(d for d in RETRY_DELAYS if d <= 300)
JITTER = 0.10
# The one schedule of a delivery's attempts also times the work queue's runs of one attempt that
# failed before it was recorded (the database away): that attempt is run again at these
# delays, at most once per slot, never on a schedule of the queue's own.
ATTEMPT_RUNS = len(RETRY_DELAYS) + 1
FAILING_AFTER = timedelta(days=5)
USER_AGENT = "Webhooks/1.0"
# What an attempt that got no HTTP answer records: one reason for a host that did not resolve to
# a public address, one for every way of not getting an answer. A receiver's owner learns what to
# fix (the name, or the server), and nobody learns more about the addresses behind a URL: which
# address a name has, or whether a port is closed, refuses, hangs or speaks TLS.
NOT_PUBLIC = "the URL's host did not resolve to a public address"
NO_ANSWER = "no answer from the receiver: no connection, or no HTTP answer within the timeout"


@dataclass(frozen=True)
class Outcome:
    status: int | None = None  # the receiver's HTTP status; None: not reached
    error: str = ""
    retry_after: float | None = None
    skipped: bool = False
    duration_ms: int | None = None

    @property
    def succeeded(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def retry_delays(livemode: bool) -> tuple[int, ...]:
    return RETRY_DELAYS if livemode else TEST_MODE_RETRY_DELAYS


def next_delay(*, attempt: int, livemode: bool, retry_after: float | None = None, rng=random) -> float | None:
    """Seconds until the attempt after ``attempt`` (1-based), or None when the schedule is spent."""
    delays = retry_delays(livemode)
    if attempt > len(delays):
        return None
    delay = delays[attempt - 1] * rng.uniform(1 - JITTER, 1 + JITTER)
    if retry_after is not None:
        delay = min(delay, max(retry_after, 0.0))
    return delay


def parse_retry_after(value: str | None, *, now) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max((when - now).total_seconds(), 0.0)


def live_secrets(endpoint: WebhookEndpoint, now) -> list[str]:
    found = [secrets.decrypt(endpoint.secret_encrypted)]
    if (
        endpoint.previous_secret_encrypted
        and endpoint.previous_secret_expires_at
        and endpoint.previous_secret_expires_at > now
    ):
        found.append(secrets.decrypt(endpoint.previous_secret_encrypted))
    return found


def _ssl_context():
    cafile = getattr(settings, "WEBHOOK_TEST_CA_FILE", None)  # tests only: no deployment sets it
    return _context_trusting(cafile) if cafile else None


@functools.cache
def _context_trusting(cafile: str):
    # One context per file: a kept connection is kept per context (apps/core/egress.py).
    import ssl

    return ssl.create_default_context(cafile=cafile)


def send(endpoint: WebhookEndpoint, event, *, now) -> Outcome:
    """POST the event to the endpoint once; never raises for the receiver's faults."""
    body = body_of(event_payload(event))
    timestamp = int(now.timestamp())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "webhook-id": event.id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature_header(
            live_secrets(endpoint, now), msg_id=event.id, timestamp=timestamp, body=body
        ),
    }
    try:
        parts = urls_check.parse(endpoint.url, livemode=endpoint.livemode)
        answer = egress.post(
            parts,
            body=body,
            headers=headers,
            timeout=settings.WEBHOOK_TIMEOUT_SECONDS,
            ssl_context=_ssl_context() if parts.scheme == "https" else None,
            keep_alive=True,
            **urls_check.guard_options(parts, livemode=endpoint.livemode),
        )
    except ApiError as exc:
        return Outcome(error=exc.message)
    except (egress.AddressRefused, egress.LookupFailed):
        return Outcome(error=NOT_PUBLIC)
    except egress.EgressError:
        return Outcome(error=NO_ANSWER)
    retry_after = None
    if answer.status in (429, 503):
        retry_after = parse_retry_after(answer.headers.get("Retry-After"), now=timezone.now())
    error = "" if 200 <= answer.status < 300 else f"the receiver answered {answer.status}"
    if 300 <= answer.status < 400:
        error += " (redirects are not followed)"
    return Outcome(status=answer.status, error=error, retry_after=retry_after)


def deliver(delivery_id: str, *, now=None) -> Outcome | None:
    """Run one pending attempt (the durable work's handler); None when there is nothing to do.

    Idempotent: an attempt already recorded is not sent again. One killed after
    the POST and before the record is sent again (receivers dedupe on webhook-id).
    """
    delivery = Delivery.objects.select_related("endpoint", "event").filter(pk=delivery_id).first()
    if delivery is None or delivery.status != DeliveryStatus.PENDING:
        return None
    endpoint, event = delivery.endpoint, delivery.event
    at = now or timezone.now()
    outcome = _recheck(endpoint, event)
    if outcome is None:
        started = time.monotonic()
        outcome = send(endpoint, event, now=at)
        outcome = replace(outcome, duration_ms=round((time.monotonic() - started) * 1000))
    record(delivery.pk, outcome, now=now or timezone.now(), failing_since=endpoint.failing_since)
    return outcome


def _recheck(endpoint: WebhookEndpoint, event) -> Outcome | None:
    """Why this attempt must not be sent now, or None: the endpoint's switch, its owner's standing and scopes.

    The owner is whoever aimed the endpoint last, so an attempt scheduled before a change of
    owner is judged by the new owner's scopes: it reaches the new URL only if they may read it."""
    if not endpoint.enabled:
        return Outcome(skipped=True, error="the endpoint is disabled")
    scopes = services.owner_scopes(endpoint)
    if scopes is None:
        with transaction.atomic():
            services.disable(endpoint, DisabledReason.CREDENTIAL_REVOKED)
        return Outcome(skipped=True, error="the key or app connection that owns the endpoint has ended")
    if event.type != "ping" and not types.may_receive(
        type_name=event.type, scopes=scopes, user_id=endpoint.user_id, livemode=endpoint.livemode, data=event.data
    ):
        return Outcome(skipped=True, error=f"the endpoint's owner may not receive {event.type}")
    return None


_UNREAD = object()


def record(delivery_id: str, outcome: Outcome, *, now, failing_since=_UNREAD) -> None:
    """Write the attempt's outcome once (an attempt already recorded is left as it is).

    A success or a skip is one conditional write of the attempt, plus the endpoint's run of
    failures cleared when the attempt's read (``failing_since``) found one. A failure locks the
    attempt and its endpoint, and schedules the next attempt with its outcome."""
    if not outcome.succeeded and not outcome.skipped:
        _record_failure(delivery_id, outcome, now=now)
        return
    if outcome.succeeded and failing_since is not None:
        # Unread (a caller outside ``deliver``): cleared wherever it is set, at the price of a write.
        endpoint_id = Delivery.objects.filter(pk=delivery_id, status=DeliveryStatus.PENDING).values("endpoint_id")
        WebhookEndpoint.objects.filter(pk__in=endpoint_id, failing_since__isnull=False).update(failing_since=None)
    # The attempt's last write: on PostgreSQL it marks the work row done in the same statement.
    finish_with(
        Delivery.objects.filter(pk=delivery_id, status=DeliveryStatus.PENDING),
        status=DeliveryStatus.SKIPPED if outcome.skipped else DeliveryStatus.SUCCEEDED,
        response_status=outcome.status,
        duration_ms=outcome.duration_ms,
        error=outcome.error[:500],
        finished_at=now,
    )


def _record_failure(delivery_id: str, outcome: Outcome, *, now) -> None:
    with transaction.atomic():
        delivery = Delivery.objects.select_for_update().select_related("event").filter(pk=delivery_id).first()
        if delivery is None or delivery.status != DeliveryStatus.PENDING:
            return  # recorded by an earlier run of the same work
        endpoint = WebhookEndpoint.objects.select_for_update().filter(pk=delivery.endpoint_id).first()
        if endpoint is None:
            return
        delivery.response_status = outcome.status
        delivery.duration_ms = outcome.duration_ms
        delivery.error = outcome.error[:500]
        delivery.finished_at = now
        delivery.status = DeliveryStatus.FAILED
        _after_failure(delivery, endpoint, outcome, now=now)
        delivery.save(
            update_fields=["status", "response_status", "duration_ms", "error", "finished_at", "next_attempt_at"]
        )


def _after_failure(delivery: Delivery, endpoint: WebhookEndpoint, outcome: Outcome, *, now) -> None:
    if outcome.status == 410:
        services.disable(endpoint, DisabledReason.GONE)
        return
    failing_since = endpoint.failing_since or delivery.scheduled_at
    if endpoint.failing_since is None:
        WebhookEndpoint.objects.filter(pk=endpoint.pk).update(failing_since=failing_since)
    if now - failing_since >= FAILING_AFTER:
        if endpoint.enabled:
            services.disable(endpoint, DisabledReason.FAILING)
            transaction.on_commit(lambda: _email_failing(endpoint.pk))
        return
    if delivery.manual:
        return  # a redelivery asked for is sent once
    delay = next_delay(attempt=delivery.attempt, livemode=endpoint.livemode, retry_after=outcome.retry_after)
    if delay is None:
        return
    when = now + timedelta(seconds=delay)
    try:
        with transaction.atomic():
            following = Delivery.objects.create(
                endpoint=endpoint,
                event_id=delivery.event_id,
                attempt=delivery.attempt + 1,
                scheduled_at=when,
                created=now,
            )
    except IntegrityError:
        return  # already scheduled by an earlier run of the same work
    delivery.next_attempt_at = when
    enqueue_attempt(following)


def disable_failing(*, now) -> int:
    """Disable (and tell the owner of) every enabled endpoint whose deliveries have all failed for 5 days.

    A failed attempt makes the same check, but an endpoint whose retries ran out and to which
    no new event comes is checked by nothing else. Returns how many were disabled.
    """
    disabled = 0
    stale = WebhookEndpoint.objects.filter(enabled=True, failing_since__lte=now - FAILING_AFTER)
    for endpoint_id in stale.values_list("pk", flat=True):
        with transaction.atomic():
            endpoint = (
                WebhookEndpoint.objects.select_for_update()
                .filter(pk=endpoint_id, enabled=True, failing_since__lte=now - FAILING_AFTER)
                .first()
            )
            if endpoint is None:
                continue  # a success or a change since the listing
            services.disable(endpoint, DisabledReason.FAILING)
            transaction.on_commit(lambda pk=endpoint.pk: _email_failing(pk))
            disabled += 1
    return disabled


def _email_failing(endpoint_id: str) -> None:
    endpoint = WebhookEndpoint.objects.select_related("user").filter(pk=endpoint_id).first()
    if endpoint is None or not endpoint.user.email:
        return
    mode = "live" if endpoint.livemode else "test"
    try:
        send_mail(
            subject="A webhook endpoint was disabled after 5 days of failed deliveries",
            message=(
                f"Every delivery to your {mode}-mode webhook endpoint {endpoint.url} ({endpoint.id}) has failed "
                "for 5 days, so it has been disabled and receives no more events.\n\n"
                "Fix the receiver, then enable the endpoint again (POST /v1/webhook_endpoints/"
                f"{endpoint.id} with disabled=false) and redeliver the events you missed "
                f"(GET /v1/events, POST /v1/events/{{id}}/redeliver).\n\n{settings.DOCS_URL}/webhooks\n"
            ),
            from_email=None,
            recipient_list=[endpoint.user.email],
        )
    except Exception:  # the endpoint stays disabled even if the mail server is down
        log.exception("could not send the failing-endpoint email for %s", endpoint_id)


def redeliver(*, event, endpoint: WebhookEndpoint) -> Delivery:
    """Send ``event`` to ``endpoint`` now, once, outside the schedule."""
    from .fanout import schedule_first_attempt

    if not endpoint.enabled:
        raise ApiError("invalid_request", "This endpoint is disabled; enable it before redelivering.", param="endpoint")
    if not types.subscribed(endpoint.enabled_events, event.type):
        raise ApiError("invalid_request", f"This endpoint does not subscribe to {event.type}.", param="endpoint")
    with transaction.atomic():
        return schedule_first_attempt(event=event, endpoint=endpoint, manual=True)
