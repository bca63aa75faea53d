"""The durable work of webhooks: one job per delivery attempt (apps.jobs)."""

from apps.jobs.public import DELIVERIES, handler

from .delivery import deliver
from .fanout import JOB_KIND


# Not atomic: the POST must not hold a transaction open. A run that fails before it
# records (the database away) is retried by the work queue; the attempt's own
# schedule is the delivery's, written by ``record``.
# Deliveries lane: at most 2 attempts of one account and 1 of one endpoint run at once, so
# an account's hung receivers cost that account's slots only.
@handler(JOB_KIND, atomic=False, max_attempts=20, retry_delays=(5, 30, 120, 600), lane=DELIVERIES)
def deliver_attempt(payload: dict) -> None:
    deliver(payload["delivery"])
