from django.core.management.base import BaseCommand

from apps.api_v1.idempotency import idempotency_purge


class Command(BaseCommand):
    help = "Delete Idempotency-Key records older than the 24-hour reuse window now; the worker does it every hour."

    def handle(self, *args, **options):
        deleted = idempotency_purge()
        self.stdout.write(f"deleted {deleted} idempotency record(s) older than 24 hours")
