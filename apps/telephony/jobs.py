"""Durable work of the simulated carrier: the next event of a call's script, delivered when due."""

from apps.jobs.public import handler

from .carriers.simulated import EVENT_JOB, play


@handler(EVENT_JOB)
def simulated_event(payload: dict) -> None:
    play(payload)
