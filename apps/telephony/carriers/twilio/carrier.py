"""``TELEPHONY_CARRIER=twilio``: the carrier boundary on Twilio (docs/operations.md, "A real carrier").

It only translates: placing is ``POST /Calls`` (``calls.py``), Twilio's callbacks become
normalized events (``callbacks.py``), ending, status checks and transcripts are durable
work the worker runs. Test mode never reaches it (``carrier_for``).
"""

import logging

from django.utils import timezone

from ...delivery import CARRIER_EVENT_JOB
from ...events import CarrierEvent
from ..base import (
    CallbackReply,
    CallbackRequest,
    Carrier,
    CarrierRefused,
    DestinationCheck,
    InboundMessage,
    PlacedCallback,
    TranscriptionRequest,
)
from . import callbacks, calls, transcription, twiml

logger = logging.getLogger(__name__)


class TwilioCarrier(Carrier):
    name = "twilio"
    events_wait_as_work = True  # its callbacks, received and not yet applied (``refresh``)

    def check_destination(self, *, to: str) -> DestinationCheck:
        # Twilio's own limits (its voice geographic permissions) answer at placing; the service's rules
        # (premium-rate, blocked prefixes) are checked apart, before any carrier.
        return DestinationCheck(True)

    def place_callback(self, request: CallbackRequest) -> PlacedCallback:
        return calls.place(request)

    def end(self, *, call_id: str, ref: str, livemode: bool) -> None:
        calls.end_later(call_id=call_id, ref=ref)

    def refresh(self, *, call_id: str, ref: str, livemode: bool) -> int:
        """Apply the callbacks already received and not yet applied (the worker's lane may lag); how many."""
        from apps.jobs.public import run_due

        return run_due(subject=call_id, kinds=[CARRIER_EVENT_JOB])

    def parse_callback(self, request) -> list[CarrierEvent]:
        what = request.resolver_match.kwargs.get("what", "") if request.resolver_match else ""
        return self.answer_callback(request, what).events

    def answer_callback(self, request, what: str) -> CallbackReply:
        if what not in callbacks.CALLBACKS:
            raise CarrierRefused(f"no Twilio callback is called {what!r}")
        params = callbacks.verified_params(request)
        key = callbacks.callback_key(request, params)
        if what == callbacks.SMS:
            return CallbackReply(
                events=[callbacks.sms_event(params)],
                dedupe_key=f"twilio:sms:{params.get('MessageSid') or key}",
                content=twiml.no_reply(),
            )
        call_id = request.GET.get("call", "")
        if not call_id:
            raise CarrierRefused("a call callback without our call id")
        if what == callbacks.GATHER:
            found, answer = callbacks.gather_answer(call_id, params, request.GET)
            return CallbackReply(events=found, dedupe_key=key, content=answer)
        if what == callbacks.DIAL:
            return CallbackReply(
                events=callbacks.dial_events(call_id, params, request.GET), dedupe_key=key, content=twiml.goodbye()
            )
        found = (
            callbacks.status_events(call_id, params)
            if what == callbacks.STATUS
            else callbacks.leg_events(call_id, params)
        )
        return CallbackReply(events=found, dedupe_key=key)

    def parse_inbound_message(self, payload) -> InboundMessage:
        """Twilio's SMS webhook parameters (``To``, ``From``, ``Body``), already verified; or the operator's own
        ``{"number", "from", "body"}`` (``manage.py sim_sms`` on a live number), taken as it is."""
        return InboundMessage(
            to=payload.get("To") or payload.get("number", ""),
            sender=payload.get("From") or payload.get("from", ""),
            body=payload.get("Body") or payload.get("body", ""),
            received_at=payload.get("received_at") or timezone.now(),
            livemode=True,
        )

    def request_transcription(self, request: TranscriptionRequest) -> str:
        return transcription.request(request)
