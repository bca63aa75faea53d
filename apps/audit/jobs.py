"""The audit log's recurring work (apps.jobs schedules): entries past their retention go every day."""

from datetime import timedelta

from apps.jobs.public import schedule

from .services import RETENTION, audit_purge

schedule(
    "audit.purge",
    audit_purge,
    every=timedelta(days=1),
    at=timedelta(hours=3, minutes=10),
    description=f"Audit entries older than {RETENTION.days} days are deleted (docs/spec.md 5.11, 8.5).",
)
