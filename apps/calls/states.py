"""The state machine of callback calls (docs/design.md "Quotes and callback calls"): one table, one writer.

``advance`` applies one event to a call in memory, by the table; ``call_change`` is the one
writer of a call's state: it returns every write the change implies (the row, inserted when
the call is placed; the hold, or the charge and the released hold; the audit row; the
webhook events) and ``call_writes_send`` sends them together and publishes in the same
transaction. Placing, the carrier's normalized events (``apps.telephony``), an end request,
the time limit and the demo's scripted calls all go through them
(docs/decisions/one-call-writer.md; tests/calls/test_one_writer.py keeps it so).

An event the table has no row for, in the call's state, is ignored and logged: carriers
resend and reorder their callbacks, so a late "ringing" after "completed" must change
nothing. When an outbound call ends, its answered time is charged (phase 2's billing rule) as
one ``call`` ledger row and its hold released, in the same transaction as the state.
"""

import logging
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connections, router, transaction
from django.utils import timezone

from apps.billing.holds import balance_lock, charge_build, hold_build, hold_release_statement
from apps.core.phones import readable
from apps.core.sql import insert_statement, inserted, update_row_statement, write_together
from apps.telephony.public import events as ev
from apps.webhooks.public import publish

from .models import Call, Direction, EndReason, Status
from .pricing import call_usage, usage_of
from .spoken import length

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


@dataclass
class CallWrites:
    """Every write one change of a call implies, as data: the call's row (inserted when it is new),
    the hold of a placed call or the charge and released hold of an ended one, the audit row, and
    the webhook events the change publishes. ``call_writes_send`` sends them in one round trip
    where the database allows, then publishes in the same transaction."""

    call: Call
    changed: list[str]
    new: bool
    statements: list = field(default_factory=list)
    rows: list = field(default_factory=list)  # unsaved objects the statements insert
    events: list[str] = field(default_factory=list)
    ledger_events: list = field(default_factory=list)  # what the charge publishes (apps/billing/ledger.py)


def call_change(
    call: Call, changed: list[str], *, new: bool = False, hold_amount: int = 0, audit=None, also=()
) -> CallWrites:
    """The one writer of a call's state: every write that the change ``advance`` made to ``call``
    implies (``new``: the call is being placed, with a hold of ``hold_amount`` while it is live).

    An outbound call that ends is charged its answered time by the billing rule, as one ``call``
    ledger row, and its hold released. ``also`` are writes of other rows that belong with this
    change (the quote a placement uses). Nothing is sent: ``call_writes_send`` does that.
    """
    connection = connections[router.db_for_write(Call)]
    writes = CallWrites(call=call, changed=list(changed), new=new)
    if new and hold_amount and call.is_live:
        hold, hold_insert = hold_build(
            user_id=call.user_id, livemode=call.livemode, amount=hold_amount, source=call.id, now=call.created
        )
        call.hold_id, call.spend = hold.id, hold_amount
        writes.statements.append(hold_insert)
        writes.rows.append(hold)
    if ended_now(call, changed):
        amount = _final_amount(call) if call.direction == Direction.OUTBOUND else 0
        if amount > 0:
            charge = _charge(call, amount)
            if charge is not None:
                writes.rows.append(charge.row)
                writes.statements += charge.statements
                writes.ledger_events += charge.events
        if call.hold_id:
            writes.statements.append(hold_release_statement(hold_id=call.hold_id, now=call.ended_at))
        call.spend = amount
        writes.changed.append("spend")
    if new:
        writes.statements.append(insert_statement(call, connection))
    else:
        fields = {name: getattr(call, name) for name in writes.changed}
        writes.statements.insert(0, update_row_statement(Call, call.pk, connection, **fields))
    writes.statements += list(also)
    if audit is not None:
        writes.statements.append(insert_statement(audit, connection))
        writes.rows.append(audit)
    writes.events = _event_types(call, writes.changed)
    return writes


def call_writes_send(writes: CallWrites) -> None:
    """Send ``writes`` (in the caller's transaction), then publish its webhook events in it: an event
    exists exactly when the change that causes it commits."""
    connection = connections[router.db_for_write(Call)]
    write_together(writes.statements, using=connection.alias)
    for obj in [writes.call] * writes.new + writes.rows:
        inserted(obj, connection)
    for event in writes.ledger_events:
        event.publish()
    _publish(writes.call, writes.events)


def _charge(call: Call, amount: int):
    balance = balance_lock(user_id=call.user_id, livemode=call.livemode)
    if balance is None:
        logger.error("call %s ended with a charge but its account has no balance row", call.id)
        return None
    return charge_build(
        balance=balance,
        amount=-amount,
        type="call",
        source=call.id,
        description=f"Call to {readable(call.to_number)} ({length(call.duration or 0)})",
        now=call.ended_at,
    )


def call_apply_event(
    *, call_id: str, kind: str, at: datetime, audit=None, seeded_at: datetime | None = None
) -> tuple[Call | None, bool]:
    """Apply the event ``kind`` (at ``at``) to the callback call ``call_id``, in one transaction.

    Returns ``(call, changed)``; ``call`` is None when no such callback exists. ``audit``
    (an unsaved audit event) is written with the change, only if there is one. ``seeded_at``
    names a demo call of one seeding instead (apps/calls/demo.py plays its live calls here):
    a call seeded again since is another call, which the event must not move.
    """
    with transaction.atomic(savepoint=False):
        calls = Call.objects.select_for_update().filter(pk=call_id)
        calls = calls.exclude(quote_id="") if seeded_at is None else calls.filter(quote_id="", created=seeded_at)
        call = calls.first()
        if call is None:
            logger.warning("call event for no such call ignored: %s %s", call_id, kind)
            return None, False
        changed = advance(call, kind, at)
        if changed is None:
            logger.info("event %s ignored for call %s in status %s", kind, call.id, call.status)
            return call, False
        call_writes_send(call_change(call, changed, audit=audit))
    return call, True


# The states an account's webhooks hear of (docs/webhooks), with the event of each.
EVENT_OF_STATUS = {S.RINGING_YOU: "call.ringing_you", S.IN_PROGRESS: "call.in_progress"}


def _event_types(call: Call, changed: list[str]) -> list[str]:
    if ended_now(call, changed):
        return ["call.ended"]
    type_name = EVENT_OF_STATUS.get(call.status) if "status" in changed else None
    return [type_name] if type_name else []


def _publish(call: Call, event_types: list[str]) -> None:
    from .serializers import CallSerializer

    if not event_types:
        return
    now = call.ended_at or timezone.now()
    data = CallSerializer(call, context={"now": now}).data
    for type_name in event_types:
        publish(call.user_id, type_name, data, livemode=call.livemode)


def _final_amount(call: Call) -> int:
    return usage_of(call, call.ended_at).amount or 0


def call_apply_carrier_event(event: ev.CarrierEvent):
    """The receiver of the ``call`` family (``settings.TELEPHONY_RECEIVERS``)."""
    if event.kind not in ev.CALL_KINDS:
        logger.warning("unknown carrier event ignored: %s for %s", event.kind, event.subject)
        return None
    at = event.at if timezone.is_aware(event.at) else timezone.make_aware(event.at)
    call, _changed = call_apply_event(call_id=event.subject, kind=event.kind, at=at)
    return call
