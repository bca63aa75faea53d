"""The claim of a lane that bounds its rows per tenant and per subject (webhook deliveries).

It counts the lane's leased rows, passes over the rows of a tenant or subject already at its
bound, and leases the rest. Claims of one bounded lane take turns (a PostgreSQL advisory lock
held to the end of the claim's transaction; on SQLite the transaction's ``BEGIN IMMEDIATE``),
so two claimers never both take a tenant's last slot. The lease and the conditional update
are the runner's own: a row is still one claimer's, and a killed worker's row comes due again
when its lease runs out.
"""

import zlib
from collections import Counter
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.db.models import F

from . import conf, lanes
from .models import Job, JobStatus

# How many due rows, per row wanted, a bounded claim reads past the ones it must pass over.
BOUNDED_WINDOW = 50


def claim_bounded(due, lane: lanes.Lane, *, now: datetime, limit: int, token: str, still_due) -> list[Job]:
    """Lease up to ``limit`` of ``due`` within the lane's bounds; ``still_due`` (every row due now) re-checks
    each at the lease."""
    # An idle lane's poll stays a plain read: no turn taken (on SQLite, no write lock) for nothing.
    if not due.exists():
        return []
    with transaction.atomic():
        _take_turn(lane)
        running = list(
            Job.objects.filter(status=JobStatus.READY, lane=lane.name, locked_until__gt=now).values_list(
                "tenant", "subject"
            )
        )
        tenants = Counter(tenant for tenant, _ in running if tenant)
        subjects = Counter(subject for _, subject in running if subject)

        def fits(tenant: str, subject: str) -> bool:
            if tenant and lane.per_tenant is not None and tenants[tenant] >= lane.per_tenant:
                return False
            return not (subject and lane.per_subject is not None and subjects[subject] >= lane.per_subject)

        # Tenants and subjects at their bound are passed over by the query itself, so a backlog of
        # one tenant's rows due first never hides another's row from the window read.
        full_tenants = [tenant for tenant in tenants if not fits(tenant, "")]
        full_subjects = [subject for subject in subjects if not fits("", subject)]
        if full_tenants:
            due = due.exclude(tenant__in=full_tenants)
        if full_subjects:
            due = due.exclude(subject__in=full_subjects)
        chosen = []
        for job in due.order_by("run_at", "id")[: limit * BOUNDED_WINDOW]:
            if not fits(job.tenant, job.subject):
                continue
            chosen.append(job)
            tenants[job.tenant] += 1
            subjects[job.subject] += 1
            if len(chosen) == limit:
                break
        if not chosen:
            return []
        lease = now + timedelta(seconds=conf.get("LEASE_SECONDS"))
        ids = [job.id for job in chosen]
        # Re-checked: a claim outside the lane (run_due without one) may have taken a row meanwhile.
        taken = still_due.filter(id__in=ids).update(locked_by=token, locked_until=lease, attempts=F("attempts") + 1)
    if taken == len(chosen):
        # Every row chosen was leased: they are as read, with this claim's lease (no second read).
        for job in chosen:
            job.locked_by, job.locked_until, job.attempts = token, lease, job.attempts + 1
        return chosen
    return list(Job.objects.filter(id__in=ids, locked_by=token).order_by("run_at", "id"))


def _take_turn(lane: lanes.Lane) -> None:
    """Claims of one bounded lane run one at a time, until the claim's transaction ends."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [zlib.crc32(f"jobs.lane.{lane.name}".encode())])
    # SQLite: the transaction began IMMEDIATE (config/settings.py), holding the one write lock.
