"""Where an app's action waits for the user (docs/decisions/user-decides.md): the allowance at
quote and at placing, and the user's yes on a page of the service before a call is placed or a
webhook endpoint is aimed, when the connection asks first or has just read message bodies.

Only an app's connection is held here: an API key is the user's own, never asked, and keeps
the caps of the settings. Each gate is one call from the service it guards.
"""

import hashlib
import json
from datetime import datetime, timedelta

from django.conf import settings
from django.core import signing
from django.utils import timezone

from apps.audit.models import AuditEvent, EventType
from apps.core.errors import ApiError
from apps.core.ids import ID_LENGTH, random_base62

from .models import Decision
from .rules import Rules, connected_apps_url, rules_get, shown

# A connection that received message bodies this recently acts outward only with the user's yes.
READ_WINDOW = timedelta(minutes=60)
# How long the user has to answer for a webhook endpoint write (a call's lives as long as its quote).
WEBHOOK_DECISION_LIFETIME = timedelta(minutes=10)
SIGNING_SALT = "safeguards.confirmation"


def connection_of(principal) -> str | None:
    """The client id of an app's connection; None for an API key or the signed-in owner."""
    if principal is None or principal.kind != "oauth":
        return None
    return principal.client_id or principal.credential_id


def read_messages_recently(*, user_id, client_id: str, now: datetime) -> bool:
    """Whether this connection received message bodies in the last 60 minutes: every read that
    returned any is an audit event of the app (apps/messages/reading.py), on the app's own index."""
    return AuditEvent.objects.filter(
        user_id=user_id, client_id=client_id, event_type=EventType.MESSAGES_READ, created__gte=now - READ_WINDOW
    ).exists()


def _allowance_error(rules: Rules) -> ApiError:
    return ApiError(
        "spend_limit_exceeded",
        f"Calls through this app have reached the daily allowance the account holder chose for it "
        f"({rules.allowance_display}); it frees up at 00:00 UTC. The account holder can change the allowance "
        f"on Connected apps: {connected_apps_url()}.",
    )


def allowance_left(*, principal, spent_today: int, caps_left: int, first_increment: int) -> int:
    """At quote: what the caps and this connection's allowance leave today (minor units), or 403
    ``spend_limit_exceeded`` naming the allowance and the page that changes it. ``spent_today`` is
    what calls of this credential count today; ``caps_left`` what the account and credential caps leave."""
    client_id = connection_of(principal)
    if client_id is None:
        return caps_left
    return _within_allowance(
        rules_get(user_id=principal.user.pk, client_id=client_id), spent_today, caps_left, first_increment
    )


def _within_allowance(rules: Rules, spent_today: int, caps_left: int, first_increment: int) -> int:
    left = rules.daily_allowance - spent_today
    if left < first_increment:
        raise _allowance_error(rules)
    return min(caps_left, left)


def placement_check(*, principal, quote, spent_today: int, caps_left: int, first_increment: int, now=None) -> int:
    """At placing, after the quote's own checks and the caps: the allowance again, then the user's
    yes when the connection asks first or read message bodies in the last hour. Returns what the
    caps and the allowance leave; raises 403 ``spend_limit_exceeded`` or ``user_confirmation_required``.
    Runs after the account's balance row is locked, so parallel placements see each other's spend."""
    client_id = connection_of(principal)
    if client_id is None:
        return caps_left
    now = now or timezone.now()
    user_id = principal.user.pk
    rules = rules_get(user_id=user_id, client_id=client_id)
    left = _within_allowance(rules, spent_today, caps_left, first_increment)
    if rules.ask_first or read_messages_recently(user_id=user_id, client_id=client_id, now=now):
        decision = Decision.objects.filter(
            user_id=user_id, client_id=client_id, action=Decision.CALL, subject=quote.pk
        ).first()
        if decision is None or decision.decision != Decision.CONFIRMED:
            raise _call_confirmation_error(
                user_id=user_id, client_id=client_id, quote_id=quote.pk, declined=decision is not None
            )
    return left


def confirm_url(payload: dict) -> str:
    """A link to the confirmation page for one action; its nonce becomes the decision's id."""
    token = signing.dumps({**payload, "n": random_base62(ID_LENGTH)}, salt=SIGNING_SALT, compress=True)
    return f"{settings.APP_URL}/confirm/{token}"


def confirmation_payload(token: str, *, max_age: timedelta | None = None) -> dict | None:
    """The action a confirmation link names, or None for a link this service did not sign."""
    try:
        payload = signing.loads(token, salt=SIGNING_SALT, max_age=max_age)
    except signing.BadSignature:
        return None
    return payload if isinstance(payload, dict) else None


def _call_confirmation_error(*, user_id, client_id: str, quote_id: str, declined: bool) -> ApiError:
    url = confirm_url({"a": Decision.CALL, "u": str(user_id), "c": client_id, "s": quote_id})
    if declined:
        return ApiError(
            "user_confirmation_required",
            "The account holder declined this call, so this quote cannot be placed. Ask for a new quote only if "
            "they ask for the call again.",
            param="quote",
            extra={"confirm_url": url, "decision": Decision.DECLINED},
        )
    return ApiError(
        "user_confirmation_required",
        f"The account holder must confirm this call on the service's own page before it is placed: {url} . "
        "Ask them to open it and press Confirm, then place the quote again (valid while the quote lives).",
        param="quote",
        extra={"confirm_url": url},
    )


def webhook_subject(*, endpoint_id: str | None, url: str, enabled_events) -> str:
    """One webhook endpoint write, as a decision names it: the endpoint (or a new one), its address
    and the events it would receive."""
    text = json.dumps([endpoint_id or "", url or "", sorted(enabled_events or [])])
    return hashlib.sha256(text.encode()).hexdigest()


def webhook_check(*, principal, endpoint_id: str | None, url: str, enabled_events, now=None) -> None:
    """Before an app creates or re-aims a webhook endpoint (inside the write's transaction): when its
    connection read message bodies in the last hour, the user's unused yes to this very write, spent
    here; otherwise 403 ``user_confirmation_required`` with the page to give it."""
    client_id = connection_of(principal)
    if client_id is None:
        return
    now = now or timezone.now()
    user_id = principal.user.pk
    if not read_messages_recently(user_id=user_id, client_id=client_id, now=now):
        return
    subject = webhook_subject(endpoint_id=endpoint_id, url=url, enabled_events=enabled_events)
    spent = Decision.objects.filter(
        user_id=user_id,
        client_id=client_id,
        action=Decision.WEBHOOK,
        subject=subject,
        decision=Decision.CONFIRMED,
        used_at__isnull=True,
        expires_at__gt=now,
    ).update(used_at=now)
    if spent:
        return
    link = confirm_url(
        {
            "a": Decision.WEBHOOK,
            "u": str(user_id),
            "c": client_id,
            "s": subject,
            "we": endpoint_id or "",
            "url": url,
            "ev": sorted(enabled_events or []),
        }
    )
    raise ApiError(
        "user_confirmation_required",
        "This app read messages in the last hour, so the account holder must confirm where its webhook endpoint "
        f"sends events on the service's own page first: {link} . Ask them to open it and press Confirm, then send "
        "the same request again within 10 minutes.",
        extra={"confirm_url": link},
    )


__all__ = ["allowance_left", "placement_check", "shown", "webhook_check"]
