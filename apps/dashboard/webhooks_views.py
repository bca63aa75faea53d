"""The Webhooks page: the account's endpoints in each mode, their recent deliveries, and what the
account does about them (rotate a secret, redeliver one event, resend what failed while a
receiver was down), through the webhooks app's own services.

Every id in a path is looked up within the signed-in account: another account's endpoint or
delivery is a 404, the same as one that never existed.
"""

import json
from datetime import UTC, datetime, timedelta

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from apps.apikeys.selectors import apikey_list
from apps.core.errors import ApiError
from apps.core.templatetags.when import when
from apps.credentials.principal import session_principal
from apps.oauth.connections.selectors import app_name_of
from apps.webhooks import public as webhooks

RECENT_DELIVERIES = 25
# The overlaps the rotate form offers, in seconds: the API's default first.
OVERLAPS = (
    (webhooks.DEFAULT_ROTATION_OVERLAP, "24 hours"),
    (3600, "1 hour"),
    (webhooks.MAX_ROTATION_OVERLAP, "7 days"),
    (0, "No overlap: the old secret stops now"),
)


def _owners(user, endpoints) -> dict[str, str]:
    """Who aims each endpoint, by endpoint id: the API key's or the app's name as the user knows it."""
    key_ids = {e.owner_credential_id for e in endpoints if e.owner_kind == "api_key"}
    keys = dict(apikey_list(user=user).filter(pk__in=key_ids).values_list("pk", "name")) if key_ids else {}
    app_names: dict[str, str] = {}
    named = {}
    for endpoint in endpoints:
        credential = endpoint.owner_credential_id
        if endpoint.owner_kind == "api_key":
            named[endpoint.pk] = (
                f"API key \u201c{keys[credential]}\u201d"
                if credential in keys
                else "An API key no longer on the account"
            )
        else:
            if credential not in app_names:
                app_names[credential] = app_name_of(credential) or credential
            named[endpoint.pk] = f"Connected app \u201c{app_names[credential]}\u201d"
    return named


def _endpoint_or_404(request, endpoint_id: str):
    endpoint = webhooks.endpoint_get_for_account(user_id=request.user.pk, endpoint_id=endpoint_id)
    if endpoint is None:
        raise Http404("No such webhook endpoint.")
    return endpoint


def _delivery_or_404(request, delivery_id: str):
    delivery = webhooks.delivery_get_for_account(user_id=request.user.pk, delivery_id=delivery_id)
    if delivery is None:
        raise Http404("No such delivery.")
    return delivery


def _row(endpoint, owner: str) -> dict:
    return {"endpoint": endpoint, "owner": owner, "state": webhooks.endpoint_state(endpoint)}


@never_cache
@require_GET
@login_required
def webhooks_page(request):
    """Every endpoint of the account, by mode, each with its owner and status."""
    endpoints = webhooks.endpoint_list_for_account(user_id=request.user.pk)
    owners = _owners(request.user, endpoints)
    modes = [
        {
            "name": name,
            "livemode": livemode,
            "rows": [_row(e, owners[e.pk]) for e in endpoints if e.livemode == livemode],
        }
        for name, livemode in (("Live mode", True), ("Test mode", False))
    ]
    return render(request, "settings/webhooks.html", {"modes": modes})


def _endpoint_page(request, endpoint, *, new_secret: str = "", status: int = 200):
    now = timezone.now()
    since = endpoint.failing_since or now - timedelta(days=1)
    return render(
        request,
        "settings/webhook_endpoint.html",
        {
            **_row(endpoint, _owners(request.user, [endpoint])[endpoint.pk]),
            "deliveries": webhooks.delivery_list_recent(endpoint=endpoint, limit=RECENT_DELIVERIES),
            "recent_limit": RECENT_DELIVERIES,
            "new_secret": new_secret,
            "overlaps": OVERLAPS,
            "previous_secret_live": bool(
                endpoint.previous_secret_expires_at and endpoint.previous_secret_expires_at > now
            ),
            "since_value": since.astimezone(UTC).strftime("%Y-%m-%dT%H:%M"),
            "now_value": now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M"),
            "resend_limit": webhooks.RESEND_LIMIT,
        },
        status=status,
    )


@never_cache
@require_GET
@login_required
def endpoint_page(request, endpoint_id: str):
    """One endpoint: its owner, status and secret, its recent deliveries, and "resend what failed"."""
    return _endpoint_page(request, _endpoint_or_404(request, endpoint_id))


@never_cache
@require_POST
@login_required
def rotate_form(request, endpoint_id: str):
    """A new signing secret, shown in this answer only (never stored for a later page: not in the
    session, not in a message cookie), as the API's rotate answers it once."""
    endpoint = _endpoint_or_404(request, endpoint_id)
    try:
        overlap = int(request.POST.get("expires_in", ""))
    except ValueError:
        overlap = None
    if overlap not in {seconds for seconds, _label in OVERLAPS}:
        messages.error(request, "Choose how long the current secret keeps signing.")
        return redirect("webhook-endpoint-page", endpoint_id=endpoint.pk)
    principal = session_principal(request.user, livemode=endpoint.livemode)
    endpoint, secret = webhooks.endpoint_rotate_secret(
        principal=principal, endpoint=endpoint, data={"expires_in": overlap}
    )
    return _endpoint_page(request, endpoint, new_secret=secret)


def _parse_since(value: str) -> datetime | None:
    """The form's ``datetime-local`` value, read as UTC (the page's times are UTC)."""
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


@never_cache
@require_POST
@login_required
def resend_form(request, endpoint_id: str):
    """ "Resend everything that failed since …": one redelivery per missed event, queued as durable work."""
    endpoint = _endpoint_or_404(request, endpoint_id)
    since = _parse_since(request.POST.get("since", ""))
    if since is None:
        messages.error(request, "Give the moment the endpoint went down, as a date and a time (UTC).")
        return redirect("webhook-endpoint-page", endpoint_id=endpoint.pk)
    try:
        resent = webhooks.deliveries_resend_failed(endpoint=endpoint, since=since)
    except ApiError as error:
        messages.error(request, error.message)
        return redirect("webhook-endpoint-page", endpoint_id=endpoint.pk)
    if not resent.queued:
        messages.success(
            request,
            f"Nothing to resend: every event that failed since {when(resent.since)} has been delivered since, "
            "or is already queued.",
        )
    else:
        noun = "redelivery" if resent.queued == 1 else "redeliveries"
        text = f"Queued {resent.queued} {noun} of what failed since {when(resent.since)}."
        if resent.remaining:
            text += f" {resent.remaining} more failed since then: press Resend again to queue the next ones."
        messages.success(request, text)
    return redirect("webhook-endpoint-page", endpoint_id=endpoint.pk)


@never_cache
@require_GET
@login_required
def delivery_page(request, delivery_id: str):
    """One attempt: what was sent (the exact body), what came back, and the Redeliver button."""
    delivery = _delivery_or_404(request, delivery_id)
    body = webhooks.delivery_body(delivery)
    return render(
        request,
        "settings/webhook_delivery.html",
        {
            "delivery": delivery,
            "endpoint": delivery.endpoint,
            "body": body,
            # The same JSON indented, beside the exact bytes: what a person reads, not what was signed.
            "formatted": json.dumps(json.loads(body), indent=2, ensure_ascii=False),
        },
    )


@never_cache
@require_POST
@login_required
def redeliver_form(request, delivery_id: str):
    """Send the attempt's event to its endpoint again, once, now (``POST /v1/events/{id}/redeliver``)."""
    delivery = _delivery_or_404(request, delivery_id)
    try:
        queued = webhooks.redeliver(event=delivery.event, endpoint=delivery.endpoint)
    except ApiError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"Queued a redelivery of {delivery.event.type} ({delivery.event_id}): {queued.pk}.")
    return redirect("webhook-endpoint-page", endpoint_id=delivery.endpoint_id)
