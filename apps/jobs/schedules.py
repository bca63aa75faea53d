"""Recurring work: each app declares what runs every period beside its handlers, the worker runs it.

In the app's ``jobs.py``::

    from apps.jobs.public import schedule

    schedule("audit.purge", audit_purge, every=timedelta(days=1), at=timedelta(hours=3),
             description="Audit entries older than 400 days are deleted.")

The work is the app's own service, called as ``fn(now=...)``: the purge an operator's command
runs too. A schedule is a handler of its own kind plus a period. Periods are counted from the Unix
epoch in UTC and start at ``at`` past each boundary (03:00 UTC for a daily one above).
Every worker writes the row of the current period (``seed``) with the period's start as
its dedupe key, so however many workers run, a period has one row, and the claim gives
that row to one of them: the durable-work row is the lock. A period in which no worker
ran is not caught up later; the next period's run does the work (every scheduled job
deletes or checks what is due by then, whenever it runs).

The rows are ordinary durable work: retried on failure, visible in the admin
(``Scheduled work``), kept like any finished row. The management commands that do the
same work stay, for an operator who wants it done now.
"""

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from . import registry
from .models import Job

logger = logging.getLogger("apps.jobs")

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Schedule:
    kind: str
    fn: Callable[..., object]
    every: timedelta
    at: timedelta
    description: str

    def period_start(self, now: datetime) -> datetime:
        """When the period holding ``now`` began (its run is due from then)."""
        elapsed = now - EPOCH - self.at
        return EPOCH + self.at + self.every * (elapsed // self.every)

    def dedupe_key(self, start: datetime) -> str:
        return start.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


_schedules: dict[str, Schedule] = {}


def schedule(
    kind: str,
    fn: Callable[..., object],
    *,
    every: timedelta,
    at: timedelta = timedelta(0),
    description: str,
    **handler_options,
) -> None:
    """Declare ``fn(*, now)`` as recurring work of ``kind``, run once every ``every``; what it returns is dropped."""
    if every < timedelta(minutes=1):
        raise ImproperlyConfigured(f"Schedule {kind!r}: a period is at least a minute.")
    if not timedelta(0) <= at < every:
        raise ImproperlyConfigured(f"Schedule {kind!r}: at must lie within the period.")

    def run(payload: dict) -> None:
        fn(now=timezone.now())

    # Named as the work itself, not ``schedule.<locals>.run``: the registry tells a kind declared
    # again with the same work (a module imported twice) from one declared with other work.
    run.__module__, run.__qualname__ = fn.__module__, fn.__qualname__
    registry.handler(kind, **handler_options)(run)
    _schedules[kind] = Schedule(kind=kind, fn=fn, every=every, at=at, description=description)


def schedules() -> list[Schedule]:
    return [_schedules[kind] for kind in sorted(_schedules)]


def get(kind: str) -> Schedule | None:
    return _schedules.get(kind)


def unregister(kind: str) -> None:
    _schedules.pop(kind, None)
    registry.unregister(kind)


def seed(*, now: datetime | None = None) -> list[Job]:
    """Write the current period's row of every schedule, once (a second call writes nothing)."""
    now = now or timezone.now()
    rows = []
    for item in schedules():
        start = item.period_start(now)
        fields = {"kind": item.kind, "dedupe_key": item.dedupe_key(start)}
        # ON CONFLICT DO NOTHING: another worker seeding the same period at once wins quietly.
        Job.objects.bulk_create(
            [Job(**fields, payload={"period": fields["dedupe_key"]}, run_at=start)], ignore_conflicts=True
        )
        rows.append(Job.objects.get(**fields))
    return rows


class Seeder:
    """A worker's memory of the periods it has seeded: one look per schedule and period, not per poll."""

    def __init__(self):
        self._lock = threading.Lock()
        self._seeded: dict[str, datetime] = {}

    def __call__(self, *, now: datetime | None = None) -> None:
        now = now or timezone.now()
        with self._lock:
            fresh = any(self._seeded.get(item.kind) != item.period_start(now) for item in schedules())
            if not fresh:
                return
            seed(now=now)
            self._seeded = {item.kind: item.period_start(now) for item in schedules()}
