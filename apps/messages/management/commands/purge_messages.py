from django.conf import settings
from django.core.management.base import BaseCommand

from apps.messages.jobs import schedule_next_purge
from apps.messages.services import messages_purge


class Command(BaseCommand):
    help = (
        "Delete messages older than MESSAGE_RETENTION_DAYS (default 30) now, and schedule the worker's daily "
        "purge (each run schedules the next)."
    )

    def handle(self, *args, **options):
        days = settings.MESSAGE_RETENTION_DAYS
        deleted = messages_purge()
        schedule_next_purge()
        self.stdout.write(f"Deleted {deleted} messages older than {days} days.")
