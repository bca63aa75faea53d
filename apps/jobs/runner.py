"""Claiming due rows and running their handlers.

A claim is one short transaction: the due rows are selected (on PostgreSQL with ``FOR
UPDATE SKIP LOCKED``, so concurrent claimers pass each other instead of waiting) and
given a lease in one conditional ``UPDATE``, then committed. The conditional update is
what makes a row one claimer's: it re-checks that the row is still unleased, so even
where ``SKIP LOCKED`` does not exist (SQLite) two claimers never both take it. The
handler runs after the claim has committed; its outcome is written only under the
same claim (``locked_by``), so a worker whose lease ran out cannot overwrite the
outcome of the one that took the row over.

A claim of a lane that bounds its rows per tenant and per subject (webhook deliveries:
2 per account, 1 per endpoint) counts the lane's leased rows and passes over the rows of
a tenant or subject already at its bound. Claims of such a lane take turns (a PostgreSQL
advisory lock held to the end of the claim's transaction; on SQLite the transaction's
``BEGIN IMMEDIATE``), so two claimers never both take a tenant's last slot.
"""

import contextlib
import logging
import os
import random
import socket
import threading
import traceback
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.db.models import F, Q
from django.db.models.sql.subqueries import UpdateQuery
from django.utils import timezone

from apps.core.ids import random_base62
from apps.core.purge import delete_in_batches

from . import bounds, conf, lanes, registry
from .models import Job, JobStatus

logger = logging.getLogger("apps.jobs")

ERROR_LIMIT = 4000


class RetryLater(Exception):
    """Raised by a handler to be run again after ``after`` seconds (a Retry-After, say).

    Counts as an attempt like any failure.
    """

    def __init__(self, after: float, reason: str = ""):
        super().__init__(reason or f"retry in {after:g} s")
        self.after = after


class _LeaseLost(Exception):
    pass


def worker_name() -> str:
    return f"{socket.gethostname()[:40]}:{os.getpid()}"


def due_rows(now: datetime):
    """The rows a claim at ``now`` may take (ready, due, not leased)."""
    return Job.objects.filter(status=JobStatus.READY, run_at__lte=now).filter(
        Q(locked_until__isnull=True) | Q(locked_until__lte=now)
    )


def next_due(*, now: datetime, lane: str | None = None) -> datetime | None:
    """When the earliest ready row due after ``now`` (of ``lane``) falls due: one read of the first
    entry of the ready rows' index past ``now``. Rows due already and not claimed (leased, past a
    lane's bounds, of a kind nobody handles) are not waited for."""
    rows = Job.objects.filter(status=JobStatus.READY, run_at__gt=now)
    if lane is not None:
        rows = rows.filter(lane=lane)
    return rows.order_by("run_at").values_list("run_at", flat=True).first()


def claim(
    *,
    now: datetime,
    limit: int,
    kinds: Iterable[str] | None = None,
    subject: str | None = None,
    where: dict | None = None,
    lane: str | None = None,
) -> tuple[str, list[Job]]:
    """Lease up to ``limit`` due rows to a new claim; returns the claim and its rows in due order.

    With ``lane``, only that lane's rows, within its bounds per tenant and subject.
    """
    # Rows of a kind nobody handles stay ready (the worker names them at start-up): a
    # deployment that dropped a handler must not lose their work.
    wanted = set(registry.kinds())
    if kinds is not None:
        wanted &= set(kinds)
    if lane is not None:
        wanted &= set(registry.kinds_of(lane))
    if not wanted:
        return "", []
    due = due_rows(now).filter(kind__in=sorted(wanted))
    if lane is not None:
        due = due.filter(lane=lane)
    if subject:
        due = due.filter(subject=subject)
    if where:
        due = due.filter(**{f"payload__{key}": value for key, value in where.items()})
    token = f"{worker_name()}:{random_base62(12)}"
    if lane is not None and lanes.get(lane).bounded:
        bounded = bounds.claim_bounded(due, lanes.get(lane), now=now, limit=limit, token=token, still_due=due_rows(now))
        return token, bounded
    # PostgreSQL: the rows stay locked from the select to the lease (others skip them). Without
    # SKIP LOCKED (SQLite) no transaction is needed: the conditional update alone decides.
    # Inside a caller's transaction no savepoint is taken (the locks last until it ends, with
    # the lease they guard): a read that finds nothing due costs one statement.
    locking = connection.features.has_select_for_update_skip_locked
    with transaction.atomic(savepoint=False) if locking else contextlib.nullcontext():
        jobs = list(due.order_by("run_at", "id").select_for_update(skip_locked=True)[:limit])
        if not jobs:
            return token, []
        lease = now + timedelta(seconds=conf.get("LEASE_SECONDS"))
        ids = [job.id for job in jobs]
        taken = due_rows(now).filter(id__in=ids).update(locked_by=token, locked_until=lease, attempts=F("attempts") + 1)
    if taken != len(jobs):
        # Without SKIP LOCKED another claimer may take some rows between the select and the
        # update: keep only the ones this claim's update won.
        return token, list(Job.objects.filter(id__in=ids, locked_by=token).order_by("run_at", "id"))
    for job in jobs:
        job.locked_by, job.locked_until, job.attempts = token, lease, job.attempts + 1
    return token, jobs


def release(token: str, jobs: Iterable[Job]) -> None:
    """Give back claimed rows that were not run (a worker stopping): due again at once, the attempt uncounted."""
    ids = [job.id for job in jobs]
    if ids:
        Job.objects.filter(id__in=ids, locked_by=token, status=JobStatus.READY).update(
            locked_by="", locked_until=None, attempts=F("attempts") - 1
        )


PURGE_BATCH = 1000


def purge(*, now: datetime) -> int:
    """Delete finished rows past their keeping time (``KEEP_*_DAYS``), in bounded batches; returns how many."""
    removed = 0
    for status, days in (
        (JobStatus.SUCCESSFUL, conf.get("KEEP_SUCCESSFUL_DAYS")),
        (JobStatus.FAILED, conf.get("KEEP_FAILED_DAYS")),
    ):
        old = Job.objects.filter(status=status, created__lt=now - timedelta(days=days))
        removed += delete_in_batches(old, batch_size=PURGE_BATCH)
    return removed


def _finish(job: Job, token: str, **fields) -> bool:
    fields.setdefault("finished_at", timezone.now())
    return Job.objects.filter(id=job.id, locked_by=token).update(locked_by="", locked_until=None, **fields) == 1


def _describe(exc: BaseException) -> str:
    text = "".join(traceback.format_exception(exc))
    return text if len(text) <= ERROR_LIMIT else "…" + text[-ERROR_LIMIT:]


def retry_delay(spec: registry.HandlerSpec, attempt: int) -> float:
    """Seconds before the run after failed run number ``attempt`` (1-based)."""
    if spec.retry_delays:
        delay = spec.retry_delays[min(attempt, len(spec.retry_delays)) - 1]
    else:
        delay = min(conf.get("RETRY_BASE_SECONDS") * 2 ** (attempt - 1), conf.get("RETRY_MAX_SECONDS"))
    # Spread: rows that failed together (a receiver that was down) do not all come back at once.
    return delay * random.uniform(0.9, 1.1)  # noqa: S311 (jitter, not a secret)


def run_one(job: Job, token: str, *, now: datetime) -> str:
    """Run one claimed row; returns its status afterwards."""
    spec = registry.get(job.kind)
    if spec is None:
        release(token, [job])
        return JobStatus.READY
    max_attempts = spec.max_attempts or conf.get("MAX_ATTEMPTS")
    if job.attempts > max_attempts:
        # Claimed more often than allowed without an outcome: each run ended with its worker
        # (killed, out of memory); running it again would likely end the next worker too.
        error = f"no outcome after {max_attempts} runs: each worker stopped while running it"
        if _finish(job, token, status=JobStatus.FAILED, last_error=error):
            logger.error("job %s %s failed: %s", job.id, job.kind, error)
        return JobStatus.FAILED
    try:
        if spec.atomic:
            with transaction.atomic():
                spec.fn(job.payload)
                if not _finish(job, token, status=JobStatus.SUCCESSFUL, last_error=""):
                    raise _LeaseLost
        else:
            _running.claim, _running.marked = (job, token), None
            try:
                spec.fn(job.payload)
            finally:
                _running.claim = None
            if _running.marked is None:
                if not _finish(job, token, status=JobStatus.SUCCESSFUL, last_error=""):
                    raise _LeaseLost
            elif not _running.marked:
                raise _LeaseLost
    except _LeaseLost:
        logger.warning("job %s %s outlived its lease: another claim holds it now", job.id, job.kind)
        return JobStatus.READY
    except Exception as exc:
        return _failed(job, token, spec, exc, now=now, max_attempts=max_attempts)
    return JobStatus.SUCCESSFUL


_running = threading.local()


def finish_with(queryset, **values) -> int:
    """``queryset.update(**values)``, as a handler's last write; returns the rows it changed.

    Inside a handler that calls out (``atomic=False``), on PostgreSQL, the same statement marks
    the running row successful (a data-modifying WITH, atomic without a transaction), so the
    handler's outcome and its row's success mark cost one statement; the handler must return
    right after it. Elsewhere (SQLite, no running row) the update alone, and the runner marks
    the row as it always does.
    """
    claim = getattr(_running, "claim", None)
    if claim is None or connection.vendor != "postgresql":
        return queryset.update(**values)
    job, token = claim
    outcome_sql, outcome_params = _update_sql(queryset, values)
    mark = Job.objects.filter(id=job.id, locked_by=token)
    done = {"locked_by": "", "locked_until": None, "status": JobStatus.SUCCESSFUL, "last_error": ""}
    mark_sql, mark_params = _update_sql(mark, {**done, "finished_at": timezone.now()})
    with connection.cursor() as cursor:
        # Both parts are the ORM's compiled UPDATEs, their values passed as parameters.
        cursor.execute(
            f"WITH outcome AS ({outcome_sql} RETURNING 1), mark AS ({mark_sql} RETURNING 1) "  # noqa: S608
            "SELECT (SELECT count(*) FROM outcome), (SELECT count(*) FROM mark)",
            [*outcome_params, *mark_params],
        )
        written, marked = cursor.fetchone()
    _running.marked = bool(marked)
    return written


def _update_sql(queryset, values: dict) -> tuple[str, tuple]:
    query = queryset.query.chain(UpdateQuery)
    query.add_update_values(values)
    return query.get_compiler(queryset.db).as_sql()


def _failed(job, token, spec, exc, *, now, max_attempts) -> str:
    error = _describe(exc)
    if job.attempts >= max_attempts:
        if _finish(job, token, status=JobStatus.FAILED, last_error=error):
            logger.error(
                "job %s %s failed after %s attempts: %s: %s", job.id, job.kind, job.attempts, type(exc).__name__, exc
            )
        return JobStatus.FAILED
    delay = exc.after if isinstance(exc, RetryLater) else retry_delay(spec, job.attempts)
    run_at = now + timedelta(seconds=delay)
    if _finish(job, token, run_at=run_at, last_error=error, finished_at=None):
        logger.warning(
            "job %s %s attempt %s failed, retry at %s: %s: %s",
            job.id,
            job.kind,
            job.attempts,
            run_at.isoformat(),
            type(exc).__name__,
            exc,
        )
    return JobStatus.READY


def run_due(
    *,
    now: datetime | None = None,
    limit: int | None = None,
    kinds: Iterable[str] | None = None,
    subject: str | None = None,
    where: dict | None = None,
    lane: str | None = None,
) -> int:
    """Claim and run due rows in this process until none is due (or ``limit`` ran); returns how many ran.

    ``now`` fixes the clock for the run (what is due, leases, retry times); by default
    ``timezone.now()`` at each claim. ``lane`` claims as a worker's thread of that lane does,
    within the lane's bounds per tenant and subject.
    """
    kinds = list(kinds) if kinds is not None else None
    batch = conf.get("BATCH_SIZE")
    # A bounded lane's claim stops short at its bounds, not only when nothing more is due.
    bounded = lane is not None and lanes.get(lane).bounded
    ran = 0
    while limit is None or ran < limit:
        clock = now or timezone.now()
        asked = batch if limit is None else min(batch, limit - ran)
        written = _enqueued()
        token, jobs = claim(now=clock, limit=asked, kinds=kinds, subject=subject, where=where, lane=lane)
        for job in jobs:
            run_one(job, token, now=clock)
        ran += len(jobs)
        # A short claim took every row due; only rows the handlers wrote since can be due now
        # (a simulated call's next event), so without any the run is over without another look.
        if len(jobs) < asked and _enqueued() == written and not (bounded and jobs):
            break
    return ran


_writes = threading.local()


def _enqueued() -> int:
    return getattr(_writes, "count", 0)


def note_enqueued() -> None:
    """Counts this thread's enqueues, so that a run knows whether its handlers wrote work."""
    _writes.count = _enqueued() + 1
