"""Writes of webhook endpoints: create, change, delete, rotate the secret, send a ping; and their ending.

Any credential of the account with ``webhooks:manage`` manages the account's
endpoints in its mode. An endpoint belongs to the credential (an API key, or the
user's connection to an app) that created it or last changed its ``url`` or
``enabled_events``: whoever aims it owns it. Every type it is enabled for must be
readable with the owner's scopes (``"*"``: every type the owner can read), each
delivery checks the owner's scopes again, and the owner's end (the key revoked, the
app disconnected, a password reset) disables it. So a credential that may manage
webhooks but not read calls can re-aim an endpoint only by taking it over, and then
receives no call it could not read; its own end then disables the endpoint.

Each create, change, delete and rotation is a sensitive action of the app or key that
asked for it (docs/design.md "Webhooks": shown on Activity and on the app's entry on
Connected apps), recorded in the write's own transaction; a change of owner is one more.
"""

from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from apps.api_v1.public import CURRENT_VERSION
from apps.audit.models import EventType
from apps.audit.services import audit_sensitive_action
from apps.core.errors import ApiError
from apps.credentials.standing import credential_scopes
from apps.safeguards.public import webhook_check

from . import fanout, secrets, urls_check
from .inputs import (
    parse_expires_in,
    require_readable,
    unknown_fields,
    validate_description,
    validate_enabled_events,
)
from .models import DisabledReason, Event, WebhookEndpoint
from .serializers import endpoint_payload


def _owner(principal) -> tuple[str, str]:
    if principal.kind not in ("api_key", "oauth"):
        raise ApiError("forbidden", "Webhook endpoints are managed with an API key or an app's access token.")
    return principal.kind, principal.credential_id


def _host(url: str) -> str:
    return urlsplit(url).netloc


def _audit(
    principal, event_type: str, verb: str, endpoint: WebhookEndpoint, *, host: str = "", detail: str = "", **data
) -> None:
    """The audit row of an endpoint write. It names the receiver's host only, never the whole URL (a
    path or query may carry the receiver's own token, and the log outlives the endpoint) nor a secret."""
    host = host or _host(endpoint.url)
    audit_sensitive_action(
        principal=principal,
        event_type=event_type,
        summary=f"{verb} a webhook endpoint for {host}{detail}",
        data={"endpoint": endpoint.pk, "host": host, **data},
    )


def owner_scopes(endpoint: WebhookEndpoint) -> frozenset | None:
    return credential_scopes(
        kind=endpoint.owner_kind, user_id=endpoint.user_id, credential_id=endpoint.owner_credential_id
    )


def endpoint_create(*, principal, data: dict) -> tuple[WebhookEndpoint, str]:
    """A new endpoint and its secret (shown once). 409 ``webhook_endpoint_limit`` past 16 in this mode."""
    kind, credential_id = _owner(principal)
    unknown_fields(data, {"url", "enabled_events", "description"})
    url = urls_check.validate(data.get("url"), livemode=principal.livemode)
    if "enabled_events" not in data:
        raise ApiError("invalid_request", "enabled_events is required.", param="enabled_events")
    enabled_events = validate_enabled_events(data.get("enabled_events"), scopes=principal.scopes)
    description = validate_description(data.get("description"))
    secret = secrets.new_secret()
    with transaction.atomic():
        webhook_check(principal=principal, endpoint_id=None, url=url, enabled_events=enabled_events)
        # Counted under a lock on the account's row: two creates at once cannot both be the 16th.
        get_user_model().objects.select_for_update().filter(pk=principal.user.pk).first()
        count = WebhookEndpoint.objects.filter(user_id=principal.user.pk, livemode=principal.livemode).count()
        if count >= settings.WEBHOOK_ENDPOINT_LIMIT:
            raise ApiError("webhook_endpoint_limit")
        endpoint = WebhookEndpoint.objects.create(
            user_id=principal.user.pk,
            livemode=principal.livemode,
            url=url,
            description=description,
            enabled_events=enabled_events,
            api_version=principal.api_version or CURRENT_VERSION,
            secret_encrypted=secrets.encrypt(secret),
            owner_kind=kind,
            owner_credential_id=credential_id,
        )
        _audit(principal, EventType.WEBHOOK_ENDPOINT_CREATED, "created", endpoint)
    return endpoint, secret


def endpoint_update(*, principal, endpoint: WebhookEndpoint, data: dict) -> WebhookEndpoint:
    """Change the fields given; setting ``url`` or ``enabled_events`` makes the caller the owner."""
    unknown_fields(data, {"url", "enabled_events", "description", "disabled"})
    changes: dict = {}
    aims = "url" in data or "enabled_events" in data
    if aims:
        kind, credential_id = _owner(principal)
    if "url" in data:
        changes["url"] = urls_check.validate(data["url"], livemode=endpoint.livemode)
    if "enabled_events" in data:
        changes["enabled_events"] = validate_enabled_events(data["enabled_events"], scopes=principal.scopes)
    elif aims:
        # A new url alone keeps the types: the new owner must be able to read each of them.
        require_readable(endpoint.enabled_events, scopes=principal.scopes)
    if aims and (endpoint.owner_kind, endpoint.owner_credential_id) != (kind, credential_id):
        changes["owner_kind"], changes["owner_credential_id"] = kind, credential_id
    if "description" in data:
        changes["description"] = validate_description(data["description"])
    if "disabled" in data:
        disabled = data["disabled"]
        if not isinstance(disabled, bool):
            raise ApiError("invalid_request", "disabled must be true or false.", param="disabled")
        if not disabled and "owner_kind" not in changes and owner_scopes(endpoint) is None:
            raise ApiError(
                "invalid_request",
                "The key or app connection that owns this endpoint has ended, so it cannot be enabled again as it "
                "is. Set its url or enabled_events with this credential to take it over, or create a new endpoint.",
                param="disabled",
            )
        changes["enabled"] = not disabled
        changes["disabled_reason"] = DisabledReason.REQUESTED if disabled else ""
        if not disabled:
            changes["failing_since"] = None
    with transaction.atomic():
        endpoint = WebhookEndpoint.objects.select_for_update().get(pk=endpoint.pk)
        if "url" in changes or "enabled_events" in changes:  # re-aimed: where and what it sends
            aim = {"url": endpoint.url, "enabled_events": endpoint.enabled_events, **changes}
            webhook_check(
                principal=principal, endpoint_id=endpoint.pk, url=aim["url"], enabled_events=aim["enabled_events"]
            )
        if changes.get("enabled") is True and endpoint.enabled:
            changes.pop("enabled"), changes.pop("disabled_reason"), changes.pop("failing_since")
        if changes.get("enabled") is False and not endpoint.enabled:
            changes.pop("enabled"), changes.pop("disabled_reason")
        before = _host(endpoint.url)
        previous_owner = {"kind": endpoint.owner_kind, "id": endpoint.owner_credential_id}
        if (changes.get("owner_kind"), changes.get("owner_credential_id")) == tuple(previous_owner.values()):
            changes.pop("owner_kind"), changes.pop("owner_credential_id")  # a concurrent change made it ours
        for name, value in changes.items():
            setattr(endpoint, name, value)
        if changes:
            endpoint.save(update_fields=[*changes, "updated"])
            _audit_update(principal, endpoint, changes, before=before)
            if "owner_kind" in changes:
                _audit(
                    principal,
                    EventType.WEBHOOK_ENDPOINT_OWNER_CHANGED,
                    "took over",
                    endpoint,
                    detail=f" from {_owner_named(previous_owner)}",
                    previous_owner=previous_owner,
                )
    return endpoint


def _owner_named(owner: dict) -> str:
    return f"API key {owner['id']}" if owner["kind"] == "api_key" else f"the app {owner['id']}"


# The request's field each changed column answers to (the owner has its own audit row).
_REQUEST_FIELD = {"enabled": "disabled", "disabled_reason": "disabled", "failing_since": "disabled"}
_OWNER_FIELDS = {"owner_kind", "owner_credential_id"}


def _audit_update(principal, endpoint: WebhookEndpoint, changes: dict, *, before: str) -> None:
    fields = sorted({_REQUEST_FIELD.get(name, name) for name in changes if name not in _OWNER_FIELDS})
    if not fields:
        return
    if fields == ["disabled"]:
        verb, detail = ("enabled" if changes["enabled"] else "disabled"), ""
    else:
        verb, detail = "changed", f" ({', '.join(fields)})"
    after = _host(endpoint.url)
    if after != before:  # named as it was known until now, and as it is known from now on
        verb, detail = "changed", f"{detail}, now {after}"
    _audit(principal, EventType.WEBHOOK_ENDPOINT_UPDATED, verb, endpoint, host=before, detail=detail, changed=fields)


def endpoint_delete(*, principal, endpoint: WebhookEndpoint) -> str:
    """Deletes the endpoint and its pending deliveries (their due work finds nothing and ends)."""
    endpoint_id = endpoint.pk
    with transaction.atomic():
        deleted, _ = WebhookEndpoint.objects.filter(pk=endpoint_id).delete()
        if deleted:  # a delete that lost a race with another deletes nothing and records nothing
            _audit(principal, EventType.WEBHOOK_ENDPOINT_DELETED, "deleted", endpoint)
    return endpoint_id


def endpoint_rotate_secret(*, principal, endpoint: WebhookEndpoint, data: dict) -> tuple[WebhookEndpoint, str]:
    """A new secret; the current one keeps signing beside it for ``expires_in`` seconds (0: stops now).

    A rotation inside another's overlap drops the oldest secret at once: at most two sign.
    """
    unknown_fields(data, {"expires_in"})
    overlap = parse_expires_in(data.get("expires_in"))
    secret = secrets.new_secret()
    now = timezone.now()
    with transaction.atomic():
        endpoint = WebhookEndpoint.objects.select_for_update().get(pk=endpoint.pk)
        if overlap:
            endpoint.previous_secret_encrypted = endpoint.secret_encrypted
            endpoint.previous_secret_expires_at = now + timedelta(seconds=overlap)
        else:
            endpoint.previous_secret_encrypted = ""
            endpoint.previous_secret_expires_at = None
        endpoint.secret_encrypted = secrets.encrypt(secret)
        endpoint.save(
            update_fields=["secret_encrypted", "previous_secret_encrypted", "previous_secret_expires_at", "updated"]
        )
        _audit(principal, EventType.WEBHOOK_ENDPOINT_SECRET_ROLLED, "re-keyed", endpoint, expires_in=overlap)
    return endpoint, secret


def endpoint_send_test(*, endpoint: WebhookEndpoint) -> Event:
    """A ``ping`` event (the endpoint without its secret), sent to this endpoint only."""
    if not endpoint.enabled:
        raise ApiError("invalid_request", "This endpoint is disabled; enable it before sending a test event.")
    with transaction.atomic():
        event = Event.objects.create(
            user_id=endpoint.user_id,
            livemode=endpoint.livemode,
            type="ping",
            api_version=endpoint.api_version,
            data=endpoint_payload(endpoint),
        )
        fanout.schedule_first_attempt(event=event, endpoint=endpoint)
    return event


def endpoints_disable_for_credential(*, user_id, kind: str | None, credential_id: str | None) -> int:
    """Disable (``credential_revoked``) the endpoints an ended credential made, in the caller's transaction."""
    rows = WebhookEndpoint.objects.filter(user_id=user_id, enabled=True)
    if kind is not None:
        rows = rows.filter(owner_kind=kind)
    if credential_id is not None:
        rows = rows.filter(owner_credential_id=credential_id)
    return rows.update(enabled=False, disabled_reason=DisabledReason.CREDENTIAL_REVOKED, updated=timezone.now())


def disable(endpoint: WebhookEndpoint, reason: str) -> None:
    WebhookEndpoint.objects.filter(pk=endpoint.pk, enabled=True).update(
        enabled=False, disabled_reason=reason, updated=timezone.now()
    )
