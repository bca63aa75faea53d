"""The REST side of a callback call: placing it, ending it, and fetching its status when callbacks were lost.

Ending and checking are durable work (``apps/telephony/jobs.py``): the worker calls Twilio,
never a web request after it answered. A check runs every ``CHECK_EVERY`` while Twilio
says the call is live, and reports what Twilio's records prove (your leg, and the callee's
leg as a child call of it); the calls app applies only what its table allows, so a check
that repeats what the callbacks said changes nothing.
"""

import logging
from datetime import datetime, timedelta

from django.utils import timezone

from apps.jobs.public import enqueue

from ... import events as ev
from ...events import CarrierEvent
from ..base import CallbackRequest, PlacedCallback
from . import conf, twiml
from .callbacks import GATHER, STATUS
from .refusals import refusal, unreachable

logger = logging.getLogger(__name__)

END_JOB = "telephony.twilio_end"
CHECK_JOB = "telephony.twilio_check"
CHECK_EVERY = timedelta(minutes=2)
# Past this, a call Twilio still calls live is left to Twilio's own limits (the longest quote is 4 hours).
CHECK_FOR = timedelta(hours=5)
YOUR_LEG_EVENTS = ["initiated", "ringing", "answered", "completed"]
LIVE = frozenset({"queued", "initiated", "ringing", "in-progress"})


def place(request: CallbackRequest) -> PlacedCallback:
    """``POST /Calls`` to your phone with the prompt's TwiML; the first status check is durable work of the
    placing transaction."""
    from twilio.base.exceptions import TwilioException, TwilioRestException

    gather_url = conf.callback_url(
        GATHER,
        call=request.call_id,
        to=request.to,
        caller_id=request.caller_id,
        limit=request.max_duration,
        record="1" if request.record else "0",
    )
    try:
        placed = conf.rest_client().calls.create(
            to=request.your_number,
            from_=request.caller_id,
            twiml=twiml.prompt(callee_name=request.callee_name, to=request.to, gather_url=gather_url),
            status_callback=conf.callback_url(STATUS, call=request.call_id),
            status_callback_event=YOUR_LEG_EVENTS,
            status_callback_method="POST",
            timeout=conf.YOUR_RING_SECONDS,
        )
    except TwilioRestException as error:
        logger.warning("twilio refused call %s: %s %s", request.call_id, error.status, error.code)
        raise refusal(error, request) from None
    except (TwilioException, OSError) as error:
        logger.warning("twilio unreachable placing call %s: %s", request.call_id, type(error).__name__)
        raise unreachable() from None
    check_later(call_id=request.call_id, ref=placed.sid, max_duration=request.max_duration, since=request.now)
    return PlacedCallback(ref=placed.sid, events=[CarrierEvent(ev.CALL, ev.YOU_RINGING, request.call_id, request.now)])


def check_later(*, call_id: str, ref: str, max_duration: int, since: datetime, at: datetime | None = None) -> None:
    enqueue(
        CHECK_JOB,
        {"call": call_id, "ref": ref, "limit": max_duration, "since": since.isoformat()},
        run_at=at or since + CHECK_EVERY,
        subject=call_id,
    )


def end_later(*, call_id: str, ref: str) -> None:
    """Hang up or cancel ``ref`` at Twilio, as durable work: an outage delays it, never loses it."""
    if ref:
        enqueue(END_JOB, {"call": call_id, "ref": ref}, dedupe_key=f"{END_JOB}:{ref}", subject=call_id)


def end(payload: dict) -> None:
    """Twilio takes ``canceled`` for a call not yet answered and ``completed`` for one in progress."""
    calls = conf.rest_client().calls
    status = calls(payload["ref"]).fetch().status
    if status in ("queued", "ringing", "initiated"):
        calls(payload["ref"]).update(status="canceled")
    elif status == "in-progress":
        calls(payload["ref"]).update(status="completed")


def check(payload: dict) -> list[CarrierEvent]:
    """What Twilio's records of the call prove, in order; schedules the next check while it is live."""
    call_id, ref, limit = payload["call"], payload["ref"], int(payload.get("limit") or 0)
    client = conf.rest_client()
    yours = client.calls(ref).fetch()
    legs = client.calls.list(parent_call_sid=ref, page_size=20)
    found = status_fetch_events(call_id, yours, legs, limit=limit)
    since = datetime.fromisoformat(payload["since"])
    now = timezone.now()
    if yours.status in LIVE and now - since < CHECK_FOR:
        check_later(call_id=call_id, ref=ref, max_duration=limit, since=since, at=now + CHECK_EVERY)
    return found


def status_fetch_events(call_id: str, yours, legs, *, limit: int) -> list[CarrierEvent]:
    """The events a fetched call and its child legs prove. Twilio's records say how each leg ended, not who
    hung up: an answered callee's leg that ended short of the time limit is reported as the callee's."""
    now = timezone.now()

    def event(kind, at):
        return CarrierEvent(ev.CALL, kind, call_id, at or now)

    leg = min(legs, key=lambda one: one.date_created or now) if legs else None
    if leg is None:
        if yours.status in LIVE:
            return [event(ev.YOU_RINGING, yours.date_created)] if yours.status == "ringing" else []
        kind = {
            "no-answer": ev.YOU_NO_ANSWER,
            "busy": ev.YOU_DECLINED,
            "failed": ev.YOU_NO_ANSWER,
            "canceled": ev.END_REQUESTED,
            "completed": ev.YOU_DID_NOT_PRESS_1,
        }[yours.status]
        return [event(kind, yours.end_time)]
    found = [event(ev.YOU_PRESSED_1, leg.date_created)]
    # A leg's start_time is when it was dialled, not answered: billing starts at its end less its duration,
    # or, for a leg still talking, at this check (never billing the ringing).
    if leg.status == "in-progress":
        found.append(event(ev.CALLEE_ANSWERED, now))
    if leg.status == "completed":
        talked = int(leg.duration or 0)
        ended = leg.end_time or now
        kind = ev.TIME_LIMIT if limit and talked >= limit else ev.CALLEE_HUNG_UP
        found += [event(ev.CALLEE_ANSWERED, ended - timedelta(seconds=talked)), event(kind, ended)]
    elif leg.status in ("busy", "no-answer", "failed", "canceled"):
        kind = {
            "busy": ev.CALLEE_BUSY,
            "no-answer": ev.CALLEE_NO_ANSWER,
            "failed": ev.UNROUTABLE,
            "canceled": ev.YOU_HUNG_UP,
        }[leg.status]
        found.append(event(kind, leg.end_time))
    elif yours.status not in LIVE:
        # Your leg ended while the callee's is still recorded live: you hung up.
        found.append(event(ev.YOU_HUNG_UP, yours.end_time))
    return found
