"""Twilio's callbacks, checked and translated into normalized events (docs/design.md, the transitions table).

Every callback is checked with the ``twilio`` package's ``RequestValidator`` against
``X-Twilio-Signature`` before anything is read from it. Each maps to the events it proves,
in the order they happened; the calls app applies an event only where its table has a row
for it, so a callback that Twilio retries, duplicates or delivers late (a ``ringing`` after
``completed``) changes nothing the second time.

The callbacks of one call:

- ``status``: your phone's leg (``StatusCallback`` of the placed call). ``ringing`` is
  your phone ringing; ``no-answer`` and ``busy`` (you declined) end the call; ``completed``
  is you hanging up: before pressing 1 (you did not press 1), while the callee rings, or
  while you talk.
- ``gather``: the action of ``<Gather numDigits="1">`` (Twilio waits for its TwiML): ``1``
  connects, anything else (or nothing within 15 s) says goodbye.
- ``leg``: the callee's leg (``<Number statusCallback>``): ``answered`` starts billing at
  its ``Timestamp``.
- ``dial``: the action of ``<Dial>`` when the callee's leg ends (Twilio waits for its TwiML):
  ``DialCallStatus`` says how; after an answer, the parent's ``CallStatus`` says who hung up
  (``completed``: you) and ``DialCallDuration`` reaching ``timeLimit`` the time limit.
- ``sms``: an inbound SMS to one of the account's numbers.
"""

import hashlib
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime

from django.utils import timezone

from ... import events as ev
from ...events import CarrierEvent
from ..base import CarrierRefused
from . import conf, twiml

SIGNATURE_HEADER = "X-Twilio-Signature"
STATUS, GATHER, LEG, DIAL, SMS = "status", "gather", "leg", "dial", "sms"
CALLBACKS = frozenset({STATUS, GATHER, LEG, DIAL, SMS})


def verified_params(request) -> dict:
    """The callback's form parameters once its signature is Twilio's; raises ``CarrierRefused`` otherwise."""
    from twilio.request_validator import RequestValidator

    signature = request.headers.get(SIGNATURE_HEADER, "")
    if not signature:
        raise CarrierRefused("no X-Twilio-Signature")
    if not conf.auth_token() or not RequestValidator(conf.auth_token()).validate(
        conf.signed_url(request), request.POST, signature
    ):
        raise CarrierRefused("X-Twilio-Signature does not match")
    if request.POST.get("AccountSid") != conf.account_sid():
        raise CarrierRefused("a callback of another Twilio account")
    return {key: request.POST.get(key, "") for key in request.POST}


def callback_key(request, params: dict) -> str:
    """One callback, however often Twilio sends it: the address and parameters it signed."""
    signed = conf.signed_url(request) + "".join(f"{k}{v}" for k, v in sorted(params.items()))
    return "twilio:" + hashlib.sha256(signed.encode()).hexdigest()


def _when(params: dict) -> datetime:
    """When the callback's event happened: its ``Timestamp`` (RFC 2822) where Twilio sends one, else now."""
    stamp = params.get("Timestamp", "")
    if stamp:
        try:
            return parsedate_to_datetime(stamp)
        except (TypeError, ValueError):
            pass
    return timezone.now()


def _call(kind: str, call_id: str, at: datetime) -> CarrierEvent:
    return CarrierEvent(ev.CALL, kind, call_id, at, True)


# The events each CallStatus of your phone's leg reports.
YOUR_LEG_EVENTS = {
    "ringing": [ev.YOU_RINGING],
    "no-answer": [ev.YOU_NO_ANSWER],
    # Twilio reports a call you rejected as busy.
    "busy": [ev.YOU_DECLINED],
    # Your phone could not be reached after Twilio accepted the call: to you, it never rang.
    "failed": [ev.YOU_NO_ANSWER],
    # The table keeps the one that fits the call's state: before pressing 1 you did not press
    # it; after, you hung up (while the callee rang, or while you talked).
    "completed": [ev.YOU_DID_NOT_PRESS_1, ev.YOU_HUNG_UP],
    "canceled": [ev.END_REQUESTED],
}
# The events each CallStatus of the callee's leg reports.
CALLEE_LEG_EVENTS = {
    "in-progress": [ev.CALLEE_ANSWERED],
    "busy": [ev.CALLEE_BUSY],
    "no-answer": [ev.CALLEE_NO_ANSWER],
    "failed": [ev.UNROUTABLE],
}


def _leg_events(table: dict, call_id: str, params: dict) -> list[CarrierEvent]:
    at = _when(params)
    return [_call(kind, call_id, at) for kind in table.get(params.get("CallStatus", ""), [])]


def status_events(call_id: str, params: dict) -> list[CarrierEvent]:
    """Your phone's leg."""
    return _leg_events(YOUR_LEG_EVENTS, call_id, params)


def gather_answer(call_id: str, params: dict, query) -> tuple[list[CarrierEvent], str]:
    """The digit you pressed, and what your phone does next."""
    now = timezone.now()
    if params.get("Digits") != "1":
        return [_call(ev.YOU_DID_NOT_PRESS_1, call_id, now)], twiml.goodbye("Your call was not connected. Goodbye.")
    dial_query = {"call": call_id, "limit": query.get("limit", "")}
    answer = twiml.dial(
        to=query.get("to", ""),
        caller_id=query.get("caller_id", ""),
        time_limit=int(query.get("limit") or 0),
        record=query.get("record") == "1",
        dial_url=conf.callback_url(DIAL, **dial_query),
        leg_url=conf.callback_url(LEG, call=call_id),
    )
    return [_call(ev.YOU_PRESSED_1, call_id, now)], answer


def leg_events(call_id: str, params: dict) -> list[CarrierEvent]:
    """The callee's leg: its answer (billing starts at its ``Timestamp``) and the ends the dial action also
    reports (whichever arrives first counts)."""
    return _leg_events(CALLEE_LEG_EVENTS, call_id, params)


def dial_events(call_id: str, params: dict, query) -> list[CarrierEvent]:
    """How the callee's leg ended, with its answer first when there was one (the leg's own ``answered``
    callback may be late or lost: the call must still end billed from the answer)."""
    now = timezone.now()
    outcome = params.get("DialCallStatus", "")
    you_hung_up = params.get("CallStatus") == "completed"
    if outcome in ("completed", "answered"):
        talked = _int(params.get("DialCallDuration"))
        limit = _int(query.get("limit"))
        if you_hung_up:
            ended = ev.YOU_HUNG_UP
        elif limit and talked >= limit:
            ended = ev.TIME_LIMIT
        else:
            ended = ev.CALLEE_HUNG_UP
        return [_call(ev.CALLEE_ANSWERED, call_id, now - timedelta(seconds=talked)), _call(ended, call_id, now)]
    kind = {
        "busy": ev.CALLEE_BUSY,
        "no-answer": ev.CALLEE_NO_ANSWER,
        "failed": ev.UNROUTABLE,
        # Canceled before the answer: by you hanging up, or through the API (an end request).
        "canceled": ev.YOU_HUNG_UP if you_hung_up else ev.END_REQUESTED,
    }.get(outcome)
    return [_call(kind, call_id, now)] if kind else []


def sms_event(params: dict) -> CarrierEvent:
    """An inbound SMS: the number it was sent to (E.164) is the subject; the messages app finds its owner."""
    return CarrierEvent(
        ev.MESSAGE,
        ev.MESSAGE_RECEIVED,
        params.get("To", ""),
        timezone.now(),
        True,
        {"from": params.get("From", ""), "body": params.get("Body", "")},
    )


def _int(value) -> int:
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        return 0
