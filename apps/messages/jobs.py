"""The daily purge of old messages, as durable work (apps.jobs): each run schedules the next.

``manage.py purge_messages`` (the release step and ``make run`` call it) purges at once and
makes sure a next run is scheduled; the dedupe key of each day keeps one row a day however
often it is asked.
"""

from datetime import UTC, datetime, time, timedelta

from django.utils import timezone

from apps.jobs.public import HOUSEKEEPING, enqueue, handler

from .services import messages_purge

PURGE_KIND = "messages.purge"
PURGE_AT = time(3, 0)  # UTC: a quiet hour


def schedule_next_purge(*, now: datetime | None = None):
    """The purge of the next day at PURGE_AT, once (enqueued in the caller's transaction)."""
    day = (now or timezone.now()).astimezone(UTC).date() + timedelta(days=1)
    run_at = datetime.combine(day, PURGE_AT, tzinfo=UTC)
    return enqueue(PURGE_KIND, {}, run_at=run_at, dedupe_key=f"{PURGE_KIND}:{day.isoformat()}")


@handler(PURGE_KIND, lane=HOUSEKEEPING)
def purge(payload: dict) -> None:
    # Idempotent: a second run deletes what is old by then, and the next day's row is deduped.
    messages_purge()
    schedule_next_purge()
