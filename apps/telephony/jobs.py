"""Durable work of the carrier boundary: the simulator's scripted events (a call's next state in the
carrier lane, a transcription's in the transcripts lane), carriers' callbacks applied once, and the
Twilio adapter's calls out (ending and status checks in the carrier lane, transcripts in theirs)."""

from apps.jobs.public import CARRIER, TRANSCRIPTS, handler

from . import delivery
from .carriers.simulated import EVENT_JOB, TRANSCRIPT_JOB, play
from .events import deliver


@handler(EVENT_JOB, lane=CARRIER)
def simulated_event(payload: dict) -> None:
    play(payload)


@handler(TRANSCRIPT_JOB, lane=TRANSCRIPTS)
def simulated_transcript(payload: dict) -> None:
    play(payload)


@handler(delivery.CARRIER_EVENT_JOB, lane=CARRIER)
def carrier_event(payload: dict) -> None:
    delivery.play(payload)


def _deliver_all(found) -> None:
    for event in found:
        deliver(event)


@handler("telephony.twilio_end", atomic=False, lane=CARRIER)
def twilio_end(payload: dict) -> None:
    from .carriers.twilio import calls

    calls.end(payload)


@handler("telephony.twilio_check", lane=CARRIER)
def twilio_check(payload: dict) -> None:
    from .carriers.twilio import calls

    _deliver_all(calls.check(payload))


@handler("telephony.twilio_transcribe", lane=TRANSCRIPTS)
def twilio_transcribe(payload: dict) -> None:
    from .carriers.twilio import transcription

    _deliver_all(transcription.transcribe(payload))


@handler("telephony.twilio_transcript_poll", lane=TRANSCRIPTS)
def twilio_transcript_poll(payload: dict) -> None:
    from .carriers.twilio import transcription

    _deliver_all(transcription.poll(payload))
