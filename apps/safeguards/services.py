"""Writes of what the user decides for an app: its rules (at consent, on Connected apps) and a yes
or no to one of its actions (on the confirmation page). Each change is an audit event of the
account, naming the app, in the write's own transaction."""

from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.audit.models import EventType
from apps.audit.services import actor_user, audit_record
from apps.core.errors import ApiError

from .models import ConnectionRules, Decision
from .rules import allowance_choices, default_allowance, rules_get, shown


def parse_allowance(value, *, param: str = "daily_allowance") -> int:
    """An allowance the user may choose (minor units), or 400 naming the choices."""
    choices = allowance_choices()
    if type(value) is not int or value not in choices:
        offered = ", ".join(f"{amount} ({shown(amount)})" for amount in choices)
        raise ApiError("invalid_request", f"{param} must be one of {offered}, in minor units.", param=param)
    return value


def rules_set(
    *,
    user,
    client_id: str,
    client_name: str = "",
    daily_allowance: int | None = None,
    ask_first: bool | None = None,
    ask_first_default: bool = False,
    now: datetime | None = None,
) -> ConnectionRules:
    """Set one connection's allowance and switch (None leaves one as it is, or its default for a
    connection that has no row yet); an audit event for each value that changed."""
    now = now or timezone.now()
    with transaction.atomic():
        row = ConnectionRules.objects.select_for_update().filter(user=user, client_id=client_id).first()
        if row is None:
            try:
                with transaction.atomic():
                    row = ConnectionRules.objects.create(
                        user=user,
                        client_id=client_id,
                        daily_allowance=default_allowance() if daily_allowance is None else daily_allowance,
                        ask_first=ask_first_default if ask_first is None else ask_first,
                        updated=now,
                    )
            except IntegrityError:  # the same connection's row written by a concurrent consent
                row = ConnectionRules.objects.select_for_update().get(user=user, client_id=client_id)
            else:
                # What consent chose is part of connecting the app (its own audit event): no change yet.
                return row
        changed = []
        if daily_allowance is not None and daily_allowance != row.daily_allowance:
            _audit_allowance(user, client_id, client_name, row.daily_allowance, daily_allowance, now)
            row.daily_allowance = daily_allowance
            changed.append("daily_allowance")
        if ask_first is not None and ask_first != row.ask_first:
            _audit_ask_first(user, client_id, client_name, ask_first, now)
            row.ask_first = ask_first
            changed.append("ask_first")
        if changed:
            row.updated = now
            row.save(update_fields=[*changed, "updated"])
    return row


def _audit_allowance(user, client_id, client_name, before, after, now) -> None:
    summary = f"set the daily allowance to {shown(after)} (was {shown(before)})"
    audit_record(
        event_type=EventType.CONNECTION_ALLOWANCE_CHANGED,
        user=user,
        actor=actor_user(user),
        client_id=client_id,
        data={"summary": summary, "client_name": client_name, "daily_allowance": after, "previous": before},
        at=now,
    )


def _audit_ask_first(user, client_id, client_name, ask_first: bool, now) -> None:
    summary = "turned on asking first before placing a call" if ask_first else "turned off asking first"
    audit_record(
        event_type=EventType.CONNECTION_ASK_FIRST_CHANGED,
        user=user,
        actor=actor_user(user),
        client_id=client_id,
        data={"summary": summary, "client_name": client_name, "ask_first": ask_first},
        at=now,
    )


def decision_record(
    *,
    user,
    decision_id: str,
    client_id: str,
    client_name: str,
    action: str,
    subject: str,
    confirmed: bool,
    expires_at: datetime,
    summary: str,
    now: datetime | None = None,
) -> Decision | None:
    """The user's yes or no to one action, once; None when this link or this quote was decided already."""
    now = now or timezone.now()
    verdict = Decision.CONFIRMED if confirmed else Decision.DECLINED
    try:
        with transaction.atomic():
            decision = Decision.objects.create(
                id=decision_id,
                user=user,
                client_id=client_id,
                action=action,
                subject=subject,
                decision=verdict,
                decided_at=now,
                expires_at=expires_at,
            )
            audit_record(
                event_type=EventType.CONNECTION_ACTION_CONFIRMED if confirmed else EventType.CONNECTION_ACTION_DECLINED,
                user=user,
                actor=actor_user(user),
                client_id=client_id,
                data={"summary": f"{verdict} {summary}", "client_name": client_name, "action": action},
                at=now,
            )
    except IntegrityError:
        return None
    return decision


__all__ = ["decision_record", "parse_allowance", "rules_get", "rules_set"]
