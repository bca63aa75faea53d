"""One row per piece of work that must happen later.

A row is written in the same transaction as the change that causes it, so a committed
change always has its work and a rolled-back one never does. ``status`` is ``ready``
until a handler succeeds (``successful``) or gives up (``failed``); a row being run is a
``ready`` row whose lease (``locked_until``) lies in the future, so a worker that dies
holding it needs no clean-up: when the lease runs out the row is simply due again.
"""

from django.db import models
from django.db.models import Q
from django.utils import timezone


def current_time():
    # Looked up at each call (not bound once as a default would be), so tests that patch
    # timezone.now control every time this app writes.
    return timezone.now()


class JobStatus(models.TextChoices):
    READY = "ready", "Ready"
    SUCCESSFUL = "successful", "Successful"
    FAILED = "failed", "Failed"


class Job(models.Model):
    id = models.BigAutoField(primary_key=True)
    kind = models.CharField(max_length=100)
    payload = models.JSONField(default=dict)
    # What the work concerns (a call id, say), so a reader can apply that subject's due work.
    subject = models.CharField(max_length=64, blank=True, default="")
    # The lane its kind runs in (apps/jobs/lanes.py), written at enqueue: a worker's threads
    # claim one lane's rows each, through the index that leads with it.
    lane = models.CharField(max_length=32, default="")
    # Whose work it is (an account), for lanes that bound how many of one tenant's rows run at once.
    tenant = models.CharField(max_length=64, blank=True, default="")
    # With kind, makes a second enqueue of the same event a no-op. NULL, not "", when absent:
    # NULLs never collide in the unique index.
    dedupe_key = models.CharField(max_length=200, null=True, blank=True)  # noqa: DJ001
    status = models.CharField(max_length=16, choices=JobStatus.choices, default=JobStatus.READY)
    # When the row is next due: the requested time, then each retry's.
    run_at = models.DateTimeField(default=current_time)
    locked_until = models.DateTimeField(null=True, blank=True)
    # The claim that holds the lease: a finish is written only under the same claim, so a
    # worker whose lease ran out cannot overwrite the outcome of the one that took over.
    locked_by = models.CharField(max_length=64, blank=True, default="")
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True, default="")
    created = models.DateTimeField(default=current_time)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            # The claim: ready rows in due order. Finished rows, the bulk of the table, are not in it.
            models.Index(fields=["run_at", "id"], name="job_ready_due", condition=Q(status="ready")),
            models.Index(fields=["lane", "run_at", "id"], name="job_ready_lane_due", condition=Q(status="ready")),
            models.Index(
                fields=["subject", "run_at"], name="job_ready_subject", condition=Q(status="ready") & ~Q(subject="")
            ),
            models.Index(fields=["status", "-created"], name="job_status_created"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "dedupe_key"], name="job_kind_dedupe_key", condition=Q(dedupe_key__isnull=False)
            ),
        ]
        ordering = ["-created", "-id"]

    def __str__(self):
        return f"{self.kind} #{self.pk} ({self.status})"
