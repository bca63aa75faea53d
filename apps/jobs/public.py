"""Durable work: what must happen later is a row, written with the change that causes it.

Writing work::

    from django.db import transaction
    from apps.jobs.public import enqueue

    with transaction.atomic():
        call.save()
        enqueue("calls.apply_event", {"call": call.id, "event": "answered"},
                run_at=answer_at, subject=call.id, dedupe_key=f"{call.id}:answered")

The row commits or rolls back with the caller's transaction: a committed change always
has its work, a rolled-back one never does.

Handling it, in the app's ``jobs.py`` (imported at start-up, the way ``mcp_tools.py``
is)::

    from apps.jobs.public import handler

    @handler("calls.apply_event", lane="carrier")
    def apply_event(payload: dict) -> None:
        ...

Lanes (``apps/jobs/lanes.py``: carrier, transcripts, deliveries, housekeeping, the
default) never wait on each other: a worker gives each its own threads. The deliveries
lane also runs at most 2 rows of one ``tenant`` and 1 of one ``subject`` at once.

The guarantees:

- At least once. A handler may run again after it did its work (a worker killed before it
  recorded the outcome, a lease that ran out), so every handler must be idempotent: re-read
  the state and do nothing when the work is already done. By default a handler runs in one
  transaction with its row's success mark (``atomic=True``), so a handler that only writes
  to the database takes effect once; a handler that calls out (``atomic=False``) must
  dedupe on its side (a webhook's id).
- Nothing lost. A handler that raises is retried after a back-off (``settings.JOBS``, or
  ``retry_delays`` / ``max_attempts`` on the handler; raise ``RetryLater(seconds)`` for a
  chosen wait), then marked ``failed`` with its last error and one log line, visible in the
  admin. A worker killed while running a row gives it back when its lease
  (``JOBS["LEASE_SECONDS"]``) runs out; handlers must finish well inside it.
- One runner at a time. Several workers never run one row at once: a claim leases the rows
  it takes (``SELECT ... FOR UPDATE SKIP LOCKED`` on PostgreSQL), and a run whose lease ran
  out cannot record its outcome over the claim that took the row over.
- No order between rows beyond due time (``run_at``, then insertion).
- A kind with no handler is refused by ``enqueue``; rows already written for a kind whose
  handler has gone stay ``ready`` and are named in the worker's log at start-up.

Recurring work (a purge every day) is declared with ``schedule(kind, service, every=...)`` in
the same ``jobs.py``; every worker writes the current period's row and one of them runs it
(apps/jobs/schedules.py).

Restricting a run: ``subject`` is an indexed column set by ``enqueue(subject=...)``, the
cheap way to apply one object's due work (``run_due(subject=call_id)``, what a read of a
live simulated call does). ``where`` matches payload keys (``{"call": "cl_..."}``) without
an index: for tests and rare calls only.

Time: every comparison uses ``django.utils.timezone.now()`` unless ``now`` is passed, so
tests control the clock by patching it or passing ``now``; nothing sleeps.
"""

from datetime import datetime

from django.db import connections, router
from django.db.models import Exists

from apps.core.sql import Statement, insert_statement

from . import registry, runner
from .lanes import CARRIER, DELIVERIES, HOUSEKEEPING, TRANSCRIPTS
from .models import Job, JobStatus
from .registry import handler
from .runner import RetryLater, finish_with, run_due
from .schedules import schedule

__all__ = [
    "CARRIER",
    "DELIVERIES",
    "HOUSEKEEPING",
    "TRANSCRIPTS",
    "Job",
    "JobStatus",
    "RetryLater",
    "enqueue",
    "enqueue_statement",
    "finish_with",
    "handler",
    "run_due",
    "schedule",
    "work_due",
]


def enqueue(
    kind: str,
    payload: dict,
    *,
    run_at: datetime | None = None,
    dedupe_key: str | None = None,
    subject: str | None = None,
    tenant: str | None = None,
) -> Job:
    """Write a row due at ``run_at`` (default now) in the caller's transaction.

    With ``dedupe_key``, a second enqueue of the same ``(kind, dedupe_key)`` writes nothing
    and returns the row already there, whatever its state: an event that arrives twice is
    applied once. Keys are kept as long as their rows. ``tenant`` names whose work it is (an
    account), for lanes that bound one tenant's rows at once.
    """
    fields = _fields(kind, payload, run_at=run_at, dedupe_key=dedupe_key, subject=subject, tenant=tenant)
    if dedupe_key is None:
        return Job.objects.create(**fields)
    # ON CONFLICT DO NOTHING, then read: no savepoint, and a concurrent enqueue of the same
    # key waits for the other transaction and then finds its row.
    Job.objects.bulk_create([Job(**fields)], ignore_conflicts=True)
    return Job.objects.get(kind=kind, dedupe_key=dedupe_key)


def enqueue_statement(
    kind: str, payload: dict, *, run_at: datetime | None = None, subject: str | None = None, tenant: str | None = None
) -> Statement:
    """``enqueue`` without a dedupe key, as the row's INSERT (apps/core/sql.py) for the caller to send
    with its own writes in one round trip (``write_together``), in its transaction: the work exists
    exactly when those writes commit."""
    fields = _fields(kind, payload, run_at=run_at, dedupe_key=None, subject=subject, tenant=tenant)
    return insert_statement(Job(**fields), connections[router.db_for_write(Job)])


def _fields(kind: str, payload: dict, *, run_at, dedupe_key, subject, tenant) -> dict:
    spec = registry.get(kind)
    if spec is None:
        raise LookupError(f"No handler for job kind {kind!r}: register one with @handler in an app's jobs.py.")
    fields = {
        "kind": kind,
        "payload": payload,
        "dedupe_key": dedupe_key,
        "subject": subject or "",
        "lane": spec.lane,
        "tenant": tenant or "",
    }
    if run_at is not None:
        fields["run_at"] = run_at
    runner.note_enqueued()
    return fields


def work_due(*, subject, now: datetime) -> Exists:
    """Whether a row of ``subject`` (a value or an ``OuterRef``) is due at ``now`` as ``run_due`` claims
    it, for another query's annotation: a read that finds none need not run ``run_due(subject=...)``."""
    return Exists(runner.due_rows(now).filter(subject=subject))
