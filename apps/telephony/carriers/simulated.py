"""The simulated carrier: the default, and always test mode's (docs/design.md "The carrier boundary").

It calls nobody. Placing a callback writes the events of its script (``simulator.py``) as
durable work due at their times, in the placing transaction; the worker delivers each when
due, and a read of a live call delivers those already due (``refresh``), so the quick start
progresses without a worker. Events for a call that has ended meanwhile are ignored by the
calls app, so ending needs nothing here.
"""

from datetime import datetime, timedelta

from django.utils import timezone

from apps.jobs.public import enqueue, enqueue_statement, run_due

from .. import events as ev
from .. import simulator
from ..events import CarrierEvent, deliver
from .base import (
    CallbackRequest,
    Carrier,
    CarrierRefused,
    DestinationCheck,
    InboundMessage,
    PlacedCallback,
    TranscriptionRequest,
)

EVENT_JOB = "telephony.simulated_event"
# A transcription's events are rows of their own kind: they run in the transcripts lane, so a
# call's next state never waits behind them (apps/telephony/jobs.py).
TRANSCRIPT_JOB = "telephony.simulated_transcript"


def schedule(event: CarrierEvent, then: list[CarrierEvent] = ()) -> None:
    """``event`` as durable work due at its time, carrying the script's later events: each is written
    when the one before it is delivered, so placing a call writes one row, not one per event.
    Deduplicated on (subject, kind): one kind of event happens once to one call."""
    enqueue(*_work(event, then), run_at=event.at, dedupe_key=f"{event.subject}:{event.kind}", subject=event.subject)


def _work(event: CarrierEvent, then: list[CarrierEvent]) -> tuple[str, dict]:
    kind = TRANSCRIPT_JOB if event.family == ev.TRANSCRIPTION else EVENT_JOB
    return kind, {"event": event.as_payload(), "then": [later.as_payload() for later in then]}


def play(payload: dict) -> None:
    """Deliver one scripted event and schedule the next (``jobs.py``)."""
    deliver(CarrierEvent.from_payload(payload["event"]))
    then = [CarrierEvent.from_payload(item) for item in payload.get("then") or ()]
    if then:
        schedule(then[0], then[1:])


class SimulatedCarrier(Carrier):
    name = "simulated"
    events_wait_as_work = True

    def check_destination(self, *, to: str) -> DestinationCheck:
        if simulator.destination(to).blocked:
            return DestinationCheck(False, "the simulator's number that is always refused (its magic number)")
        return DestinationCheck(True)

    def place_callback(self, request: CallbackRequest) -> PlacedCallback:
        script = [
            self._event(request.call_id, kind, request.now + timedelta(seconds=after), request.livemode)
            for after, kind in simulator.timeline(
                your=request.your_number, to=request.to, max_duration=request.max_duration
            )
        ]
        # A new call's first row needs no dedupe (nothing else can have written it): one INSERT, sent
        # with the call's own writes.
        first = script[0]
        work = enqueue_statement(*_work(first, script[1:]), run_at=first.at, subject=first.subject)
        ringing = self._event(request.call_id, ev.YOU_RINGING, request.now, request.livemode)
        return PlacedCallback(ref=f"sim_{request.call_id}", events=[ringing], writes=[work])

    def end(self, *, call_id: str, ref: str, livemode: bool) -> None:
        return None

    def refresh(self, *, call_id: str, ref: str, livemode: bool) -> int:
        return run_due(subject=call_id)

    def parse_callback(self, request) -> list[CarrierEvent]:
        raise CarrierRefused("The simulator sends no callbacks: its events are durable work.")

    def parse_inbound_message(self, payload) -> InboundMessage:
        """``payload``: ``{"number", "from", "body", "received_at"?, "livemode"?}``; the code sender's body is fixed."""
        sender = payload["from"]
        body = simulator.CODE_BODY if sender == simulator.CODE_SENDER else payload["body"]
        return InboundMessage(
            to=payload["number"],
            sender=sender,
            body=body,
            received_at=payload.get("received_at") or timezone.now(),
            livemode=bool(payload.get("livemode", True)),
        )

    def request_transcription(self, request: TranscriptionRequest) -> str:
        started = request.now + timedelta(seconds=simulator.TRANSCRIPTION_STARTS_SECONDS)
        at = request.now + timedelta(seconds=simulator.TRANSCRIPTION_SECONDS)
        if request.to == simulator.TRANSCRIPTION_FAILS_TO:
            kind, detail = ev.TRANSCRIPTION_FAILED, {"reason": simulator.TRANSCRIPTION_FAILURE}
        elif request.duration <= 0:
            kind, detail = ev.TRANSCRIPTION_FAILED, {"reason": simulator.TRANSCRIPTION_TOO_SHORT}
        else:
            language = "en" if request.language in ("", "auto") else request.language
            kind = ev.TRANSCRIPTION_COMPLETED
            detail = {"language": language, **simulator.transcript_text(subject=request.subject, to=request.to)}
        schedule(
            CarrierEvent(ev.TRANSCRIPTION, ev.TRANSCRIPTION_STARTED, request.subject, started, request.livemode),
            [CarrierEvent(ev.TRANSCRIPTION, kind, request.subject, at, request.livemode, detail)],
        )
        return f"sim_{request.subject}"

    def refresh_transcription(self, *, subject: str, livemode: bool) -> None:
        run_due(subject=subject)

    @staticmethod
    def _event(call_id: str, kind: str, at: datetime, livemode: bool) -> CarrierEvent:
        return CarrierEvent(ev.CALL, kind, call_id, at, livemode)
