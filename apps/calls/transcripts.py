"""Transcript requests (docs/design.md, Phase 3, "Transcript requests").

``transcript_request`` checks, in the design's order, that a call of the caller's may be
transcribed, writes the transcript ``queued`` and asks the carrier, in one transaction: the
carrier's answer comes back later as a ``transcription`` event (durable work on the
simulator), and ``transcript_apply_carrier_event`` applies it once. The price is charged at
completion, as one ``transcript`` balance transaction; a failed transcript costs nothing.
"""

import logging
from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, connections, router, transaction
from django.utils import timezone

from apps.audit.models import EventType
from apps.audit.services import audit_sensitive_action
from apps.billing.holds import balance_amount_expression, balance_lock, charge_build, held_amount_expression
from apps.core.errors import ApiError
from apps.core.money import to_minor
from apps.core.phones import readable
from apps.core.sql import write_together
from apps.telephony.public import TranscriptionRequest, carrier_for
from apps.telephony.public import events as ev
from apps.webhooks.public import publish

from .models import Call, Transcript, TranscriptFailure, TranscriptStatus
from .pricing import amount_for, usage_of
from .selectors import call_summaries_shared, calls_of, is_call_id

logger = logging.getLogger(__name__)
PENDING = frozenset({TranscriptStatus.QUEUED, TranscriptStatus.PROCESSING})
MAX_LANGUAGE = 16


def transcript_price(call: Call) -> int:
    """``TRANSCRIPT_PER_MINUTE`` times the call's ``billed_duration`` / 60 (the one the call shows), rounded
    up once to a minor unit: 0.045 a minute for 3 billed minutes is 14 cents, never 3 x 5."""
    billed = usage_of(call, call.ended_at or timezone.now()).billed_duration
    per_minute_minor = to_minor(Decimal(settings.TRANSCRIPT_PER_MINUTE), call.currency)
    return amount_for(billed_duration=billed, per_minute_minor=per_minute_minor)


def _available(call: Call) -> int:
    """The balance less what live calls hold, minor units, in one statement."""
    account = {"user_id": call.user_id, "livemode": call.livemode}
    found = (
        Call.objects.filter(pk=call.pk)
        .annotate(current=balance_amount_expression(**account), held=held_amount_expression(**account))
        .values("current", "held")
        .first()
    )
    return found["current"] - found["held"]


def _awaiting_charge(call: Call) -> int:
    """What the account's transcripts still queued or processing will be charged, minor units.

    No hold is taken for a transcript, so without this a balance of one price would pass the
    check for every recorded call at once and each completion would charge it again."""
    calls = Call.objects.filter(user_id=call.user_id, livemode=call.livemode, transcript__status__in=PENDING)
    return sum(transcript_price(pending) for pending in calls)


def _charge(transcript: Transcript, call: Call, at: datetime) -> None:
    balance = balance_lock(user_id=call.user_id, livemode=call.livemode)
    if balance is None:
        logger.error("transcript %s completed with a charge but its account has no balance row", transcript.id)
        return
    charge = charge_build(
        balance=balance,
        amount=-transcript.amount,
        type="transcript",
        source=transcript.id,
        description=f"Transcript of a call to {readable(call.to_number)}",
        now=at,
    )
    connection = connections[router.db_for_write(Transcript)]
    write_together(charge.statements, using=connection.alias)
    charge.sent(connection)


def transcript_refresh(transcript: Transcript | None) -> bool:
    """Let the carrier bring a pending transcript's events up to now before it is read (the simulator's,
    without a worker, as a read of a live call does); True when it may have changed."""
    if transcript is None or transcript.status not in PENDING:
        return False
    carrier_for(livemode=transcript.livemode).refresh_transcription(subject=transcript.id, livemode=transcript.livemode)
    return True


def transcript_request(
    *, principal, call_id: str, language: str = "auto", now: datetime | None = None
) -> tuple[Transcript, bool]:
    """The call's transcript and whether this request made it (False: it already had one, no new charge).

    Refused in this order: no such call (404, param call_id); the account's call-summaries switch
    off (403 forbidden); the call still live (409 call_not_ended); not recorded (409
    call_not_recorded); the available balance below the price (402 insufficient_credits).
    """
    call = calls_of(principal).filter(pk=call_id).first() if is_call_id(call_id) else None
    if call is None:
        raise ApiError("not_found", "No such call.", param="call_id")
    if not call_summaries_shared(principal=principal):
        raise ApiError(
            "forbidden",
            "The account holder has turned off call summaries for connected apps; transcripts are off too.",
        )
    existing = Transcript.objects.filter(call_id=call.pk).first()
    if existing is not None:
        if transcript_refresh(existing):
            existing.refresh_from_db()
        return existing, False
    if call.is_live:
        raise ApiError("call_not_ended", f"Call {call.id} is still {call.status}; ask again once it has ended.")
    if not call.record:
        raise ApiError("call_not_recorded")
    price = transcript_price(call)
    now = now or timezone.now()
    try:
        with transaction.atomic():
            # The balance row locked first, so two requests for two calls are checked one after the other.
            balance_lock(user_id=call.user_id, livemode=call.livemode)
            if _available(call) - _awaiting_charge(call) < price:
                raise ApiError("insufficient_credits")
            transcript = Transcript.objects.create(
                call=call,
                livemode=call.livemode,
                created=now,
                language="" if language == "auto" else language,
                status=TranscriptStatus.QUEUED,
                currency=call.currency,
            )
            carrier_for(livemode=call.livemode).request_transcription(
                TranscriptionRequest(
                    subject=transcript.id,
                    call_ref=call.carrier_ref,
                    to=call.to_number,
                    language=language,
                    livemode=call.livemode,
                    now=now,
                    duration=usage_of(call, call.ended_at or now).duration,
                )
            )
            audit_sensitive_action(
                principal=principal,
                event_type=EventType.TRANSCRIPT_REQUESTED,
                summary=f"asked for the transcript of a call to {readable(call.to_number)}",
                data={"call": call.id, "transcript": transcript.id},
                at=now,
            )
    except IntegrityError:
        # A parallel request made it first (one transcript a call): answer with that one, no charge.
        return Transcript.objects.get(call_id=call.pk), False
    return transcript, True


def transcript_apply_carrier_event(event: ev.CarrierEvent) -> Transcript | None:
    """Apply a ``transcription`` event to its transcript once: a second delivery, or one for a
    transcript already finished, changes nothing and charges nothing. None when nothing changed."""
    with transaction.atomic():
        transcript = Transcript.objects.select_for_update().select_related("call").filter(pk=event.subject).first()
        if transcript is None or transcript.status not in PENDING:
            return None
        if event.kind == ev.TRANSCRIPTION_STARTED:
            # Started: processing. Arriving after a finish (carriers do not promise order) it is ignored above.
            if transcript.status != TranscriptStatus.QUEUED:
                return None
            transcript.status = TranscriptStatus.PROCESSING
            transcript.save(update_fields=["status"])
            return transcript
        if event.kind not in (ev.TRANSCRIPTION_COMPLETED, ev.TRANSCRIPTION_FAILED):
            logger.warning("transcription event of unknown kind ignored: %s %s", event.kind, event.subject)
            return None
        call = transcript.call
        transcript.completed_at = event.at
        if event.kind == ev.TRANSCRIPTION_COMPLETED:
            detail = event.detail
            transcript.status = TranscriptStatus.COMPLETED
            transcript.summary = str(detail.get("summary", ""))
            transcript.action_items = list(detail.get("action_items", []))
            transcript.reference_numbers = list(detail.get("reference_numbers", []))
            transcript.language = str(detail.get("language") or transcript.language or "en")[:MAX_LANGUAGE]
            transcript.amount = transcript_price(call)
            if transcript.amount:
                _charge(transcript, call, event.at)
        else:
            reason = event.detail.get("reason")
            transcript.status = TranscriptStatus.FAILED
            transcript.failure_reason = (
                reason if reason in TranscriptFailure.values else TranscriptFailure.PROVIDER_ERROR
            )
            transcript.amount = 0
        transcript.save()
        type_name = "transcript.completed" if transcript.status == TranscriptStatus.COMPLETED else "transcript.failed"
        publish(call.user_id, type_name, transcript_event_object(transcript), livemode=call.livemode, now=event.at)
    return transcript


def transcript_event_object(transcript: Transcript) -> dict:
    # Thin events (docs/design.md, Webhooks): the webhooks app keeps id, object, call and status only.
    return {"id": transcript.id, "object": "transcript", "call": transcript.call_id, "status": transcript.status}
