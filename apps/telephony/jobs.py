"""Durable work of the carrier boundary: the simulator's scripted events, carriers' callbacks applied once,
and the Twilio adapter's calls out (ending, status checks, transcripts)."""

from apps.jobs.public import handler

from . import delivery
from .carriers.simulated import EVENT_JOB, play
from .events import deliver


@handler(EVENT_JOB)
def simulated_event(payload: dict) -> None:
    play(payload)


@handler(delivery.CARRIER_EVENT_JOB)
def carrier_event(payload: dict) -> None:
    delivery.play(payload)


def _deliver_all(found) -> None:
    for event in found:
        deliver(event)


@handler("telephony.twilio_end", atomic=False)
def twilio_end(payload: dict) -> None:
    from .carriers.twilio import calls

    calls.end(payload)


@handler("telephony.twilio_check")
def twilio_check(payload: dict) -> None:
    from .carriers.twilio import calls

    _deliver_all(calls.check(payload))


@handler("telephony.twilio_transcribe")
def twilio_transcribe(payload: dict) -> None:
    from .carriers.twilio import transcription

    _deliver_all(transcription.transcribe(payload))


@handler("telephony.twilio_transcript_poll")
def twilio_transcript_poll(payload: dict) -> None:
    from .carriers.twilio import transcription

    _deliver_all(transcription.poll(payload))
