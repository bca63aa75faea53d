"""Normalized carrier events: what any carrier reports, in one vocabulary (docs/design.md, Phase 3).

A carrier adapter translates its own callbacks (Twilio's ``CallStatus`` and ``Digits``,
a simulator's script) into these and hands them to ``deliver``; the app that owns the
object applies them. The boundary imports no such app: receivers are named per family in
``settings.TELEPHONY_RECEIVERS`` (``{"call": "apps.calls.services...."}``), as credential
resolvers are named in settings, so a new family (inbound messages, transcriptions) is a
kind here and a receiver there.
"""

import logging
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.utils.module_loading import import_string

logger = logging.getLogger(__name__)

# The call family: one kind per row of the transitions table (docs/design.md "Quotes and callback calls").
CALL = "call"
YOU_RINGING = "you_ringing"  # the carrier rings your phone
REFUSED = "refused"  # the carrier refuses the call before ringing anyone
YOU_PRESSED_1 = "you_pressed_1"  # you answered and pressed 1
YOU_NO_ANSWER = "you_no_answer"  # your phone rang 30 s unanswered
YOU_DECLINED = "you_declined"
YOU_DID_NOT_PRESS_1 = "you_did_not_press_1"  # answered, no 1 within 15 s
CALLEE_ANSWERED = "callee_answered"
CALLEE_BUSY = "callee_busy"
CALLEE_NO_ANSWER = "callee_no_answer"  # the callee's phone rang 45 s unanswered
UNROUTABLE = "unroutable"
YOU_HUNG_UP = "you_hung_up"
CALLEE_HUNG_UP = "callee_hung_up"
TIME_LIMIT = "time_limit"  # the call reached its max_duration
END_REQUESTED = "end_requested"  # POST /v1/calls/{id}/end, or svc_end_call
CALL_KINDS = frozenset(
    {
        YOU_RINGING,
        REFUSED,
        YOU_PRESSED_1,
        YOU_NO_ANSWER,
        YOU_DECLINED,
        YOU_DID_NOT_PRESS_1,
        CALLEE_ANSWERED,
        CALLEE_BUSY,
        CALLEE_NO_ANSWER,
        UNROUTABLE,
        YOU_HUNG_UP,
        CALLEE_HUNG_UP,
        TIME_LIMIT,
        END_REQUESTED,
    }
)

# The transcription family (a recorded call's transcript).
TRANSCRIPTION = "transcription"
TRANSCRIPTION_STARTED = "transcription_started"  # the carrier began work on it: queued becomes processing
TRANSCRIPTION_COMPLETED = "transcription_completed"
TRANSCRIPTION_FAILED = "transcription_failed"  # detail: {"reason": "audio_unavailable" | ...}

# The message family (an inbound SMS, detail: the InboundMessage's fields).
MESSAGE = "message"
MESSAGE_RECEIVED = "message_received"


@dataclass(frozen=True)
class CarrierEvent:
    """Something that happened at the carrier, at ``at``, to our object ``subject`` (a call id)."""

    family: str
    kind: str
    subject: str
    at: datetime
    livemode: bool = True
    detail: dict = field(default_factory=dict)

    def as_payload(self) -> dict:
        """The event as JSON data (a durable-work payload); ``from_payload`` reads it back."""
        return {
            "family": self.family,
            "kind": self.kind,
            "subject": self.subject,
            "at": self.at.isoformat(),
            "livemode": self.livemode,
            "detail": self.detail,
        }

    @classmethod
    def from_payload(cls, payload: dict) -> "CarrierEvent":
        return cls(
            family=payload["family"],
            kind=payload["kind"],
            subject=payload["subject"],
            at=datetime.fromisoformat(payload["at"]),
            livemode=bool(payload.get("livemode", True)),
            detail=dict(payload.get("detail") or {}),
        )


def deliver(event: CarrierEvent):
    """Hand ``event`` to the receiver of its family; an event of no known family is logged and dropped."""
    path = settings.TELEPHONY_RECEIVERS.get(event.family)
    if path is None:
        logger.warning("carrier event of unknown family ignored: %s %s %s", event.family, event.kind, event.subject)
        return None
    return import_string(path)(event)
