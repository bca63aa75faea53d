"""Durable work of the simulated carrier: the next event of a call's script, or of a transcription, when due."""

from apps.jobs.public import CARRIER, TRANSCRIPTS, handler

from .carriers.simulated import EVENT_JOB, TRANSCRIPT_JOB, play


@handler(EVENT_JOB, lane=CARRIER)
def simulated_event(payload: dict) -> None:
    play(payload)


@handler(TRANSCRIPT_JOB, lane=TRANSCRIPTS)
def simulated_transcript(payload: dict) -> None:
    play(payload)
