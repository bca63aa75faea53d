"""/v1's recurring work (apps.jobs schedules): Idempotency-Key records past their window go every hour."""

from datetime import timedelta

from apps.jobs.public import schedule

from .idempotency import idempotency_purge

schedule(
    "api_v1.purge_idempotency_keys",
    idempotency_purge,
    every=timedelta(hours=1),
    at=timedelta(minutes=5),
    description="Idempotency-Key records past their 24-hour reuse window are deleted.",
)
