"""Reads for the confirmation page: the action a link names, as the user sees it. The quote and its
contact, the app and the calls' spend are read through their owning apps' selectors (the
dashboard is the top floor: it may read every app below it)."""

from dataclasses import dataclass, field
from datetime import datetime

from django.utils import timezone

from apps.calls.selectors import callback_spend_today, quote_for_confirmation
from apps.core.money import display
from apps.core.phones import readable
from apps.oauth.connections.selectors import app_is_connected, app_name_of
from apps.safeguards.public import WEBHOOK_DECISION_LIFETIME, Decision, rules_get, shown


@dataclass
class PendingAction:
    """What the page shows and what a decision records."""

    action: str
    client_id: str
    client_name: str
    subject: str
    expires_at: datetime
    summary: str  # "a call to +1 202-555-0100"
    facts: list[tuple[str, str]] = field(default_factory=list)
    closed: str = ""  # why it can no longer be decided ("" while it can)


def app_name(client_id: str) -> str:
    return app_name_of(client_id) or client_id


def is_connected(*, user, client_id: str) -> bool:
    return app_is_connected(user=user, client_id=client_id)


def pending_action(*, user, payload: dict, now: datetime | None = None) -> PendingAction | None:
    """The action of a signed link for the signed-in ``user``; None when it names another account's."""
    now = now or timezone.now()
    if str(payload.get("u")) != str(user.pk):
        return None
    client_id = str(payload.get("c", ""))
    name = app_name(client_id)
    if payload.get("a") == Decision.CALL:
        return _call_action(user=user, client_id=client_id, name=name, quote_id=str(payload.get("s", "")), now=now)
    if payload.get("a") == Decision.WEBHOOK:
        events = payload.get("ev") or []
        endpoint_id = payload.get("we") or ""
        url = str(payload.get("url", ""))
        what = f"webhook endpoint {endpoint_id} to send to {url}" if endpoint_id else f"a webhook endpoint at {url}"
        facts = [("App", name), ("Sends events to", url), ("Events", ", ".join(events) or "unchanged")]
        if endpoint_id:
            facts.append(("Endpoint", endpoint_id))
        return PendingAction(
            action=Decision.WEBHOOK,
            client_id=client_id,
            client_name=name,
            subject=str(payload.get("s", "")),
            expires_at=now + WEBHOOK_DECISION_LIFETIME,
            summary=what,
            facts=facts,
        )
    return None


def _call_action(*, user, client_id: str, name: str, quote_id: str, now: datetime) -> PendingAction | None:
    quote = quote_for_confirmation(user_id=user.pk, quote_id=quote_id)
    if quote is None:
        return None
    contact = quote.contact_name or ""
    rules = rules_get(user_id=user.pk, client_id=client_id)
    spent = callback_spend_today(user_id=user.pk, livemode=True, credential_id=client_id, now=now)
    left = max(0, rules.daily_allowance - spent)
    facts = [
        ("App", name),
        ("Number", readable(quote.to_number)),
        ("Contact", contact or "Not one of your contacts"),
        ("Price a minute", display(quote.per_minute_amount_decimal, quote.currency)),
        ("Allowance left today", f"{shown(left)} of {rules.allowance_display}"),
        ("Your phone rings first", readable(quote.your_number)),
        ("The callee sees", readable(quote.caller_id)),
    ]
    closed = ""
    if quote.call_id:
        closed = "This quote was placed already."
    elif now >= quote.expires_at:
        closed = "This quote expired. The app can ask for a new one."
    return PendingAction(
        action=Decision.CALL,
        client_id=client_id,
        client_name=name,
        subject=quote.pk,
        expires_at=quote.expires_at,
        summary=f"a call to {readable(quote.to_number)}" + (f" ({contact})" if contact else ""),
        facts=facts,
        closed=closed,
    )


def decision_for(*, user, decision_id: str, action: PendingAction) -> Decision | None:
    """The decision already taken on this link, or on this quote through another link."""
    found = Decision.objects.filter(user=user, pk=decision_id).first()
    if found is None and action.action == Decision.CALL:
        found = Decision.objects.filter(
            user=user, client_id=action.client_id, action=Decision.CALL, subject=action.subject
        ).first()
    return found
