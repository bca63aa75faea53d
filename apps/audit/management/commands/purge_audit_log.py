from django.core.management.base import BaseCommand

from apps.audit.services import RETENTION, audit_purge


class Command(BaseCommand):
    help = (
        f"Delete audit log entries older than {RETENTION.days} days (docs/spec.md 8.5) now; "
        "the worker does it every day."
    )

    def handle(self, *args, **options):
        deleted = audit_purge()
        self.stdout.write(f"Deleted {deleted} audit log entries older than {RETENTION.days} days.")
