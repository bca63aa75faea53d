"""The state machine of callback calls (docs/design.md "Quotes and callback calls"): one table, one service.

Every change of a callback call's state goes through ``call_apply_event``: the carrier's
normalized events (``apps.telephony``), an end request, the time limit. An event the table
has no row for, in the call's state, is ignored and logged: carriers resend and reorder
their callbacks, so a late "ringing" after "completed" must change nothing. When a call
ends, its answered time is charged (phase 2's billing rule) as one ``call`` ledger row and
its hold released, in the same transaction as the state.
"""

import logging
from dataclasses import dataclass
from datetime import datetime

from django.db import connections, router, transaction
from django.utils import timezone

from apps.billing.holds import balance_lock, charge_build, hold_release_statement
from apps.core.phones import readable
from apps.core.sql import insert_statement, inserted, update_row_statement, write_together
from apps.telephony.public import events as ev
from apps.webhooks.public import publish

from .models import Call, EndReason, Status
from .pricing import call_usage

logger = logging.getLogger(__name__)

S, R = Status, EndReason


@dataclass(frozen=True)
class Transition:
    to: str
    end_reason: str = ""


# (from, event) -> (to, end_reason): the table of docs/design.md "Quotes and callback calls", row by row.
TRANSITIONS: dict[tuple[str, str], Transition] = {
    (S.QUEUED, ev.YOU_RINGING): Transition(S.RINGING_YOU),
    (S.QUEUED, ev.REFUSED): Transition(S.FAILED, R.FAILED),
    (S.QUEUED, ev.END_REQUESTED): Transition(S.CANCELED, R.ENDED_BY_REQUEST),
    (S.RINGING_YOU, ev.YOU_PRESSED_1): Transition(S.RINGING),
    (S.RINGING_YOU, ev.YOU_NO_ANSWER): Transition(S.NO_ANSWER, R.YOU_DID_NOT_ANSWER),
    (S.RINGING_YOU, ev.YOU_DECLINED): Transition(S.CANCELED, R.YOU_DECLINED),
    (S.RINGING_YOU, ev.YOU_DID_NOT_PRESS_1): Transition(S.CANCELED, R.YOU_DID_NOT_PRESS_1),
    (S.RINGING_YOU, ev.END_REQUESTED): Transition(S.CANCELED, R.ENDED_BY_REQUEST),
    (S.RINGING, ev.CALLEE_ANSWERED): Transition(S.IN_PROGRESS),
    (S.RINGING, ev.CALLEE_BUSY): Transition(S.BUSY, R.CALLEE_BUSY),
    (S.RINGING, ev.CALLEE_NO_ANSWER): Transition(S.NO_ANSWER, R.CALLEE_NO_ANSWER),
    (S.RINGING, ev.UNROUTABLE): Transition(S.FAILED, R.FAILED),
    (S.RINGING, ev.YOU_HUNG_UP): Transition(S.CANCELED, R.YOU_HUNG_UP),
    (S.RINGING, ev.END_REQUESTED): Transition(S.CANCELED, R.ENDED_BY_REQUEST),
    (S.IN_PROGRESS, ev.CALLEE_HUNG_UP): Transition(S.COMPLETED, R.CALLEE_HUNG_UP),
    (S.IN_PROGRESS, ev.YOU_HUNG_UP): Transition(S.COMPLETED, R.YOU_HUNG_UP),
    (S.IN_PROGRESS, ev.END_REQUESTED): Transition(S.COMPLETED, R.ENDED_BY_REQUEST),
    (S.IN_PROGRESS, ev.TIME_LIMIT): Transition(S.COMPLETED, R.TIME_LIMIT),
}


def transition(status: str, kind: str) -> Transition | None:
    return TRANSITIONS.get((status, kind))


def advance(call: Call, kind: str, at: datetime) -> list[str] | None:
    """Apply one event to ``call`` in memory; returns the fields it changed, or None when the table
    has no row for it (the call is left as it was)."""
    step = transition(call.status, kind)
    if step is None:
        return None
    call.status = step.to
    changed = ["status"]
    if step.to == S.RINGING_YOU:
        call.ringing_you_at = at
        changed.append("ringing_you_at")
    elif step.to == S.RINGING:
        call.ringing_at = at
        changed.append("ringing_at")
    elif step.to == S.IN_PROGRESS:
        call.answered_at = at
        changed.append("answered_at")
    if step.end_reason:
        # Time reported by a carrier may trail what we stamped; an end is never before the answer.
        ended = max(at, call.answered_at) if call.answered_at else at
        call.end_reason, call.ended_at = step.end_reason, ended
        call.duration = call_usage(
            answered_at=call.answered_at,
            ended_at=ended,
            duration=None,
            per_minute_minor=call.per_minute_amount_decimal,
            first_seconds=call.first_seconds,
            next_seconds=call.next_seconds,
            now=ended,
        ).duration
        changed += ["end_reason", "ended_at", "duration"]
    return changed


def ended_now(call: Call, changed: list[str] | None) -> bool:
    return bool(changed) and "ended_at" in changed


def call_apply_event(*, call_id: str, kind: str, at: datetime, audit=None) -> tuple[Call | None, bool]:
    """Apply the event ``kind`` (at ``at``) to the callback call ``call_id``, in one transaction.

    Returns ``(call, changed)``; ``call`` is None when no such callback exists. ``audit``
    (an unsaved audit event) is written with the change, only if there is one.
    """
    with transaction.atomic(savepoint=False):
        call = Call.objects.select_for_update().filter(pk=call_id).exclude(quote_id="").first()
        if call is None:
            logger.warning("carrier event for no callback call ignored: %s %s", call_id, kind)
            return None, False
        changed = advance(call, kind, at)
        if changed is None:
            logger.info("event %s ignored for call %s in status %s", kind, call.id, call.status)
            return call, False
        call_save_change(call, changed, audit=audit)
    return call, True


def call_save_change(call: Call, changed: list[str], *, audit=None) -> None:
    """Write a change ``advance`` made, with the settlement of an ended call, in one round trip where
    the database allows: the call, the charge and the balance, the released hold, the audit row."""
    connection = connections[router.db_for_write(Call)]
    writes, charge = [], None
    if ended_now(call, changed):
        # Only callbacks are charged here; the telephony core charges the calls it writes.
        amount = _final_amount(call) if call.quote_id else 0
        if amount > 0:
            balance = balance_lock(user_id=call.user_id, livemode=call.livemode)
            if balance is not None:
                charge, charge_writes = charge_build(
                    balance=balance,
                    amount=-amount,
                    type="call",
                    source=call.id,
                    description=f"Call to {readable(call.to_number)}",
                    now=call.ended_at,
                )
                writes += charge_writes
            else:
                logger.error("call %s ended with a charge but its account has no balance row", call.id)
        if call.hold_id:
            writes.append(hold_release_statement(hold_id=call.hold_id, now=call.ended_at))
        call.spend = amount
        changed = [*changed, "spend"]
    writes.insert(0, update_row_statement(Call, call.pk, connection, **{name: getattr(call, name) for name in changed}))
    if audit is not None:
        writes.append(insert_statement(audit, connection))
    write_together(writes, using=connection.alias)
    for obj in (charge, audit):
        if obj is not None:
            inserted(obj, connection)
    _publish_change(call, changed)


# The states an account's webhooks hear of (docs/webhooks), with the event of each.
EVENT_OF_STATUS = {S.RINGING_YOU: "call.ringing_you", S.IN_PROGRESS: "call.in_progress"}


def _publish_change(call: Call, changed: list[str]) -> None:
    """The webhook event of this change, in its transaction: committed with the state or not at all."""
    from .serializers import CallSerializer

    type_name = "call.ended" if ended_now(call, changed) else EVENT_OF_STATUS.get(call.status)
    if type_name is None:
        return
    now = call.ended_at or timezone.now()
    publish(call.user_id, type_name, CallSerializer(call, context={"now": now}).data, livemode=call.livemode)


def _final_amount(call: Call) -> int:
    usage = call_usage(
        answered_at=call.answered_at,
        ended_at=call.ended_at,
        duration=call.duration,
        per_minute_minor=call.per_minute_amount_decimal,
        first_seconds=call.first_seconds,
        next_seconds=call.next_seconds,
        now=call.ended_at,
    )
    return usage.amount or 0


def call_apply_carrier_event(event: ev.CarrierEvent):
    """The receiver of the ``call`` family (``settings.TELEPHONY_RECEIVERS``)."""
    if event.kind not in ev.CALL_KINDS:
        logger.warning("unknown carrier event ignored: %s for %s", event.kind, event.subject)
        return None
    at = event.at if timezone.is_aware(event.at) else timezone.make_aware(event.at)
    call, _changed = call_apply_event(call_id=event.subject, kind=event.kind, at=at)
    return call
