"""Writes of callback calls (docs/design.md, Phase 3): quoting, placing, ending. States change in ``states``.

Placing and ending lock the account's balance row (``apps.billing.holds.balance_lock``)
before they read anything they check: every placement of one account and mode queues on
that lock, so the checks of one (a live callback, the available balance, the caps) always
see the writes of the one before, and the balance never goes below what is held.
"""

from datetime import datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connections, router, transaction
from django.db.models import OuterRef
from django.utils import timezone

from apps.audit.models import EventType
from apps.audit.services import audit_sensitive_event
from apps.billing.holds import balance_lock
from apps.contacts.selectors import contact_get, is_contact_id
from apps.core.errors import ApiError
from apps.core.ids import is_id
from apps.core.money import to_minor
from apps.core.phones import country_of, e164, parse_e164, readable
from apps.core.sql import insert_statement, inserted, update_row_statement, write_together
from apps.jobs.public import work_due
from apps.numbers.selectors import is_caller_id_id
from apps.safeguards.public import allowance_left, placement_check
from apps.telephony.public import CallbackRequest, CarrierRefused, carrier_for
from apps.telephony.public import events as ev

from .destinations import destination_check
from .limits import Price, credits_check, limits_check, longest_call
from .models import QUOTE_PREFIX, Call, Direction, Quote, Status, Transcript, new_call_id
from .selectors import calls_of, is_call_id
from .spoken import length
from .states import advance, call_change, call_writes_send
from .usage import placement_reads, quote_reads

QUOTE_LIFETIME = timedelta(minutes=10)


def is_quote_id(value) -> bool:
    return is_id(value, QUOTE_PREFIX)


def _destination(principal, to) -> tuple[object, object]:
    """``to`` (E.164 or a ``ct_`` id) as (its parsed canonical number, the contact or None)."""
    if not isinstance(to, str) or not to:
        raise ApiError(
            "invalid_request", "to is required: a number in E.164 format or a contact id (ct_...).", param="to"
        )
    if to.startswith("ct_"):
        contact = contact_get(principal=principal, contact_id=to) if is_contact_id(to) else None
        if contact is None:
            raise ApiError("not_found", "No such contact.", param="to")
        phones = list(contact.phone_numbers.all())
        if not phones:
            raise ApiError("invalid_request", f"{contact.name} has no phone number.", param="to")
        if len(phones) > 1:
            labels = ", ".join(f"{p.label} {readable(p.number)}" for p in phones)
            raise ApiError(
                "invalid_request",
                f"{contact.name} has several numbers ({labels}): send the one to call as to, in E.164 format.",
                param="to",
            )
        return _parsed(phones[0].number), contact
    return _parsed(to), None


def _parsed(number: str):
    """The canonical number (apps.core.phones): priced, limited, blocked and stored as the number it
    dials, written with the separators people type or not."""
    try:
        return parse_e164(number, typed=True)
    except ValidationError as error:
        raise ApiError("invalid_request", error.messages[0], param="to") from None


def _price_of(rate) -> tuple[Price, object]:
    per_minute = to_minor(rate.per_minute, rate.currency)
    return Price(per_minute, rate.first_seconds, rate.next_seconds), per_minute


def quote_create(*, principal, to, caller_id=None, record: bool = False, now: datetime | None = None) -> Quote:
    """A quote for a callback call to ``to``; refusals in docs/design.md's order, each with its code and param."""
    now = now or timezone.now()
    user_id, livemode = principal.user.pk, principal.livemode
    if caller_id is not None and not isinstance(caller_id, str):
        raise ApiError("invalid_request", "caller_id must be a caller ID id (cid_...).", param="caller_id")
    if not isinstance(record, bool):
        raise ApiError("invalid_request", "record must be true or false.", param="record")
    parsed, contact = _destination(principal, to)
    number = e164(parsed)
    # A malformed caller ID is never sent to the database; it is refused after the refusals before it.
    malformed = caller_id is not None and not is_caller_id_id(caller_id)
    # The rate, the caller IDs, the balance, what is held and what the limits count: one statement.
    rate = quote_reads(principal=principal, number=number, caller_id=None if malformed else caller_id, now=now)
    if rate is None:
        raise ApiError("not_found", f"There is no rate for {readable(number)}: it cannot be called.", param="to")
    destination_check(number, parsed, carrier_for(livemode=livemode))
    if malformed:
        raise ApiError("not_found", "No such caller ID.", param="caller_id")
    shown = rate.chosen_caller_id if caller_id else rate.your_number
    if caller_id and shown is None:
        raise ApiError("not_found", "No such caller ID.", param="caller_id")
    if rate.your_number is None:
        raise ApiError(
            "invalid_request",
            "This account has no default caller ID: the callback rings your own verified phone first, so verify "
            "one and make it the default.",
            param="caller_id",
        )
    price, per_minute = _price_of(rate)
    available = rate.balance_amount - rate.held
    credits_check(available=available, price=price)
    caps_left = limits_check(usage=_usage(rate), to=number, price=price, now=now)
    caps_left = allowance_left(
        principal=principal,
        spent_today=rate.spent_today_credential,
        caps_left=caps_left,
        first_increment=price.first_increment,
    )
    max_duration, max_amount = longest_call(available=available, caps_left=caps_left, price=price)
    quote = Quote(
        user_id=user_id,
        livemode=livemode,
        created=now,
        expires_at=now + QUOTE_LIFETIME,
        to_number=number,
        to_country=country_of(parsed),
        contact_id=contact.id if contact else "",
        label=rate.label,
        your_number=rate.your_number,
        caller_id=shown,
        record=record,
        currency=rate.currency,
        per_minute_amount_decimal=per_minute,
        first_seconds=rate.first_seconds,
        next_seconds=rate.next_seconds,
        max_duration=max_duration,
        max_amount=max_amount,
    )
    # As save(force_insert=True) writes it, without building the ORM's INSERT on every request.
    connection = connections[router.db_for_write(Quote)]
    write_together([insert_statement(quote, connection)], using=connection.alias)
    inserted(quote, connection)
    quote.spend_left_today = caps_left
    quote.contact_name = contact.name if contact else None
    return quote


def _usage(row) -> dict:
    return {
        name: getattr(row, name)
        for name in (
            "spent_today",
            "spent_today_credential",
            "destinations_today",
            "called_today",
            "calls_last_hour",
            "first_of_last_hour",
            "live_callback",
        )
    }


def call_audit(principal, event_type: str, call: Call, at: datetime):
    """The audit row of a call placed or ended by an app or key (shown on Activity and the app's entry)."""
    verb = "placed" if event_type == EventType.CALL_PLACED else "ended"
    summary, data = f"{verb} a call to {readable(call.to_number)}", {"call": call.id, "to": call.to_number}
    if event_type == EventType.CALL_ENDED:
        # An ended call is listed with its length, as the ledger's row of its charge is.
        if call.answered_at:
            summary += f" after {length(call.duration or 0)}"
        else:
            summary += " before it was answered"
        data["duration"] = call.duration or 0
    return audit_sensitive_event(principal=principal, event_type=event_type, summary=summary, data=data, at=at)


def call_place(*, principal, quote_id, now: datetime | None = None, also=None) -> Call:
    """Place the quote ``quote_id`` as a callback call: 201 ``ringing_you`` and a hold of its max amount.

    ``also(call)`` gives the caller's own writes that belong with the placement (the request's stored
    answer, made from the call as it is written), sent with the call's in one round trip."""
    now = now or timezone.now()
    user_id, livemode = principal.user.pk, principal.livemode
    if not is_quote_id(quote_id):
        raise ApiError("not_found", "No such quote.", param="quote")
    with transaction.atomic(savepoint=False):
        balance_lock(user_id=user_id, livemode=livemode)
        quote = placement_reads(principal=principal, quote_id=quote_id, now=now)
        if quote is None:
            raise ApiError("not_found", "No such quote.", param="quote")
        if now >= quote.expires_at:
            raise ApiError(
                "quote_expired", "This quote expired (quotes live 10 minutes): ask for a new one.", param="quote"
            )
        if quote.call_id:
            raise ApiError("quote_used", f"This quote was already placed as the call {quote.call_id}.", param="quote")
        if quote.live_callback:
            raise ApiError(
                "call_in_progress",
                f"The call {quote.live_callback} is still live: end it or wait until it ends, then place this one.",
            )
        price = Price(quote.per_minute_amount_decimal, quote.first_seconds, quote.next_seconds)
        available = quote.balance_amount - quote.held
        credits_check(available=available, price=price)
        caps_left = limits_check(usage=_usage(quote), to=quote.to_number, price=price, now=now)
        caps_left = placement_check(
            principal=principal,
            quote=quote,
            spent_today=quote.spent_today_credential,
            caps_left=caps_left,
            first_increment=price.first_increment,
            now=now,
        )
        longest, _ = longest_call(available=available, caps_left=caps_left, price=price)
        max_duration = min(quote.max_duration, longest)
        call = _placed_call(
            principal, quote, max_duration=max_duration, max_amount=price.cost(max_duration), now=now, also=also
        )
    return call


def _placed_call(principal, quote: Quote, *, max_duration: int, max_amount: int, now: datetime, also) -> Call:
    connection = connections[router.db_for_write(Call)]
    call = Call(
        id=new_call_id(),
        user_id=quote.user_id,
        livemode=quote.livemode,
        created=now,
        direction=Direction.OUTBOUND,
        status=Status.QUEUED,
        from_number=quote.caller_id,
        to_number=quote.to_number,
        to_country=quote.to_country,
        contact_id=quote.contact_id,
        per_minute_amount_decimal=quote.per_minute_amount_decimal,
        first_seconds=quote.first_seconds,
        next_seconds=quote.next_seconds,
        currency=quote.currency,
        quote_id=quote.id,
        your_number=quote.your_number,
        caller_id=quote.caller_id,
        record=quote.record,
        max_duration=max_duration,
        credential_id=principal.credential_id,
    )
    carrier = carrier_for(livemode=quote.livemode)
    call.carrier = carrier.name
    request = CallbackRequest(
        call_id=call.id,
        your_number=call.your_number,
        to=call.to_number,
        caller_id=call.caller_id,
        record=call.record,
        max_duration=max_duration,
        livemode=call.livemode,
        now=now,
        callee_name=_contact_name(principal, quote.contact_id),
    )
    carrier_writes = []
    try:
        placed = carrier.place_callback(request)
        call.carrier_ref = placed.ref
        reported = [(event.kind, event.at) for event in placed.events]
        carrier_writes = placed.writes
    except CarrierRefused as refused:
        if refused.code:
            # A refusal the user can act on (a caller ID the carrier will not show, the carrier busy):
            # answered as the contract's error, and nothing is written, so the quote can be placed again.
            headers = {"Retry-After": str(refused.retry_after)} if refused.retry_after else None
            raise ApiError(refused.code, refused.message, param=refused.param, headers=headers) from None
        reported = [(ev.REFUSED, now)]
    call.transcript_ref = None  # a new call has none: its serializer (the answer, the event) needs no query
    changed = []
    for kind, at in reported:
        changed += advance(call, kind, at) or []
    writes = call_change(
        call,
        changed,
        new=True,
        hold_amount=max_amount,
        audit=call_audit(principal, EventType.CALL_PLACED, call, now),
        also=[update_row_statement(Quote, quote.pk, connection, call_id=call.id), *carrier_writes],
    )
    if also is not None:
        writes.statements += also(call)
    try:
        call_writes_send(writes)
    except IntegrityError:
        # Only the one-live-callback index can refuse these rows; the balance lock makes it unreachable.
        raise ApiError("call_in_progress", "Another call of this account is still live.") from None
    quote.call_id = call.id
    return call


def _contact_name(principal, contact_id: str) -> str:
    """The name the prompt on your phone says, where the quote was for a contact."""
    contact = contact_get(principal=principal, contact_id=contact_id) if contact_id else None
    return contact.name if contact else ""


def call_refresh(call: Call) -> bool:
    """Let the carrier bring a live call's events up to now; True when it may have changed. Callbacks,
    and the demo's live calls (a carrier plays them too, apps/calls/demo.py); other calls never change."""
    if not (call.quote_id or call.carrier) or not call.is_live:
        return False
    carrier_for(livemode=call.livemode).refresh(call_id=call.id, ref=call.carrier_ref, livemode=call.livemode)
    return True


def call_end(*, principal, call_id: str, now: datetime | None = None) -> Call | None:
    """End one of the principal's calls: before the answer it is canceled, in progress completed,
    already ended unchanged. None when the principal has no such call.

    The carrier's events already due are applied first, so a call that ended on its own is
    not ended again (nor billed to now); only for a live call of the principal's own: another
    account's call id is answered as no call, and nothing of that call is touched."""
    if not is_call_id(call_id):
        return None
    now = now or timezone.now()
    owned = calls_of(principal).select_for_update().filter(pk=call_id)
    with transaction.atomic(savepoint=False):
        # Whether the carrier has events of the call due, in the same statement as the call.
        call = owned.annotate(work_due=work_due(subject=OuterRef("pk"), now=now)).first()
        if call is None:
            return None
        carrier = carrier_for(livemode=call.livemode)
        if call.is_live and (call.work_due or not carrier.events_wait_as_work):
            # In this transaction, under the row's lock: the events apply as they would from the worker.
            applied = carrier.refresh(call_id=call.id, ref=call.carrier_ref, livemode=call.livemode)
            if applied != 0:
                call = owned.first()
        call.transcript_ref = None if call.quote_id else _transcript_id(call)
        changed = advance(call, ev.END_REQUESTED, now) if call.is_live else None
        call.ended_by_this_request = changed is not None
        if changed is None:
            return call
        audit = call_audit(principal, EventType.CALL_ENDED, call, now)
        call_writes_send(call_change(call, changed, audit=audit))
        # In the ending's transaction: a carrier that must call out writes that as durable work, so the
        # end reaches it exactly when the call is ended here, however the process fares after the commit.
        carrier_for(livemode=call.livemode).end(call_id=call.id, ref=call.carrier_ref, livemode=call.livemode)
    return call


def _transcript_id(call: Call) -> str | None:
    return Transcript.objects.filter(call_id=call.pk).values_list("id", flat=True).first()
