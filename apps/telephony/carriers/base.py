"""The one interface of a carrier (docs/design.md, Phase 3 "The carrier boundary").

A carrier adapter translates between this interface and one telephony provider: it never
decides a call's state, never bills, never reads our tables. It reports what happened as
normalized events (``apps.telephony.events``); the calls app applies them to its
transitions table. Two implement it: the simulator (``simulated.py``) and Twilio
(``twilio/``: ``place_callback`` is ``POST /Calls`` to your phone with ``<Gather
numDigits=1>`` then ``<Dial callerId=...>``, ``end`` an update to ``canceled``/``completed``,
``answer_callback`` checks ``X-Twilio-Signature`` and maps ``CallStatus``/``Digits``/
``DialCallStatus`` to event kinds).
"""

import functools
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime

from apps.core import metrics

from ..events import CarrierEvent


@dataclass(frozen=True)
class DestinationCheck:
    """Whether the carrier will call a number; ``reason`` says why not, for the user, as what the number
    is ("a number the carrier does not call"), so the refusal reads "<number> is <reason>: it cannot be called."
    """

    allowed: bool
    reason: str = ""


@dataclass(frozen=True)
class CallbackRequest:
    """A callback call to set up: ring ``your_number``, wait for 1, then ring ``to`` showing ``caller_id``."""

    call_id: str
    your_number: str
    to: str
    caller_id: str
    record: bool
    max_duration: int
    livemode: bool
    now: datetime
    # Who the callee is, as the prompt on your phone names them: the contact's name, or "" (then the number).
    callee_name: str = ""


@dataclass(frozen=True)
class PlacedCallback:
    """The carrier's reference of a placed callback and the events it reported at once."""

    ref: str
    events: list[CarrierEvent] = field(default_factory=list)
    # The carrier's own writes for this call (apps/core/sql.py statements: its durable work), which
    # the caller sends with the call's own in one round trip, in its transaction.
    writes: list = field(default_factory=list)


@dataclass(frozen=True)
class InboundMessage:
    """An SMS the carrier delivered to one of the account's numbers."""

    to: str  # our number, E.164
    sender: str  # E.164 or an alphanumeric sender ("HSBC")
    body: str
    received_at: datetime
    livemode: bool = True


@dataclass(frozen=True)
class TranscriptionRequest:
    """A transcription of a recorded call; its outcome comes back as a ``transcription`` event."""

    subject: str  # our id of what is transcribed (a call_ or trs_ id): the events' subject
    call_ref: str
    to: str
    language: str
    livemode: bool
    now: datetime
    # Seconds of answered talk on the recording: a carrier reports too little to transcribe as too_short.
    duration: int = 0


@dataclass(frozen=True)
class CallbackReply:
    """What a carrier's callback reported and what to answer it.

    ``events`` are applied once, in order, as one piece of durable work: ``dedupe_key`` names the
    callback, so a carrier's retry or duplicate of it writes nothing new. ``content`` is the body
    the carrier expects back (TwiML for a call still in progress); empty: 204.
    """

    events: list[CarrierEvent] = field(default_factory=list)
    dedupe_key: str | None = None
    content: str = ""
    content_type: str = "text/xml"


class CarrierRefused(Exception):
    """The carrier would not take the request (an outage, a refusal); ``message`` says what happened.

    ``code`` is the contract's error code (apps/core/errors.py) when the refusal is the user's to act
    on (a caller ID the carrier will not show, a country it may not call, the carrier busy), with
    ``param`` and ``retry_after`` where they apply; without one the call is placed as ``failed``.
    """

    def __init__(self, message: str, *, code: str = "", param: str | None = None, retry_after: int | None = None):
        self.message = message
        self.code = code
        self.param = param
        self.retry_after = retry_after
        super().__init__(message)


def _counting_refusals(place):
    @functools.wraps(place)
    def counted(self, request):
        try:
            return place(self, request)
        except CarrierRefused:
            metrics.count_carrier_refusal(carrier=self.name, stage="placement")
            raise

    return counted


class Carrier(ABC):
    """One telephony provider. Instances are cheap and stateless; settings choose which."""

    name: str
    # True when a live call's events not yet applied wait as durable work whose subject is the call
    # (what ``refresh`` runs): a caller that sees none due (``apps.jobs.public.work_due``) need not refresh.
    events_wait_as_work = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # Whichever adapter it is, a placement it refuses is counted at the boundary (/metrics).
        if "place_callback" in cls.__dict__:
            cls.place_callback = _counting_refusals(cls.__dict__["place_callback"])

    @abstractmethod
    def check_destination(self, *, to: str) -> DestinationCheck:
        """Whether this carrier calls ``to`` (E.164); the service's own rules are checked apart."""

    @abstractmethod
    def place_callback(self, request: CallbackRequest) -> PlacedCallback:
        """Start a callback call; later events arrive through ``deliver``. Raises ``CarrierRefused``."""

    @abstractmethod
    def end(self, *, call_id: str, ref: str, livemode: bool) -> None:
        """Hang up or cancel a live call; idempotent (ending an ended call does nothing). Called in the
        transaction that ends the call: an adapter that must call out writes durable work, never waits."""

    def refresh(self, *, call_id: str, ref: str, livemode: bool) -> int | None:
        """Bring a live call's events up to now before it is read; carriers that push them need nothing.
        Returns how many events it applied (0: the call is as stored), or None when it cannot tell."""
        return 0

    @abstractmethod
    def parse_callback(self, request) -> list[CarrierEvent]:
        """The events of a callback the carrier sent to ``/carrier/<name>/...``, after checking that the
        carrier signed it; raises ``CarrierRefused`` for one it did not."""

    def answer_callback(self, request, what: str) -> CallbackReply:
        """The events of the callback ``what`` and the answer the carrier expects; raises
        ``CarrierRefused`` for a callback the carrier did not sign. By default: ``parse_callback``'s
        events, answered 204."""
        return CallbackReply(events=self.parse_callback(request))

    @abstractmethod
    def parse_inbound_message(self, payload) -> InboundMessage:
        """An inbound SMS from the carrier's callback (a request, or the simulator's dict)."""

    @abstractmethod
    def request_transcription(self, request: TranscriptionRequest) -> str:
        """Start a transcription; returns the carrier's reference of it."""

    def refresh_transcription(self, *, subject: str, livemode: bool) -> None:
        """Bring a pending transcription's events up to now before it is read; carriers that push them
        need nothing."""
        return None
