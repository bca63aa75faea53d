"""The durable work of webhooks: one job per delivery attempt, and the recurring checks (apps.jobs)."""

from datetime import timedelta

from apps.jobs.public import DELIVERIES, handler, schedule

from .delivery import ATTEMPT_RUNS, RETRY_DELAYS, deliver, disable_failing
from .fanout import JOB_KIND, purge_events


# Not atomic: the POST must not hold a transaction open. The next attempt after a recorded
# failure is scheduled by ``delivery.record``; a run that fails before it records (the
# database away) is run again by the work queue on that same schedule (delivery.py owns it).
# Deliveries lane: at most 2 attempts of one account and 1 of one endpoint run at once, so
# an account's hung receivers cost that account's slots only.
@handler(JOB_KIND, atomic=False, max_attempts=ATTEMPT_RUNS, retry_delays=RETRY_DELAYS, lane=DELIVERIES)
def deliver_attempt(payload: dict) -> None:
    deliver(payload["delivery"])


schedule(
    "webhooks.disable_failing",
    disable_failing,
    every=timedelta(hours=1),
    at=timedelta(minutes=15),
    description="Endpoints whose deliveries have all failed for 5 days are disabled and their owner emailed.",
)

schedule(
    "webhooks.purge_events",
    purge_events,
    every=timedelta(days=1),
    at=timedelta(hours=3, minutes=40),
    description="Events (and their delivery attempts) older than WEBHOOK_EVENT_RETENTION_DAYS are deleted.",
)
