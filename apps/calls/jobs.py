"""Durable work of the calls app: the next event of a demo call that seed_demo left live."""

from apps.jobs.public import CARRIER, handler

from . import demo


@handler(demo.EVENT_JOB, lane=CARRIER)
def demo_event(payload: dict) -> None:
    demo.play(payload)
