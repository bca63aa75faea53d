from django.conf import settings
from django.core.management.base import BaseCommand

from apps.messages.services import messages_purge


class Command(BaseCommand):
    help = (
        "Delete messages older than MESSAGE_RETENTION_DAYS (default 30) now; the worker also does it every day "
        "(the messages.purge schedule)."
    )

    def handle(self, *args, **options):
        days = settings.MESSAGE_RETENTION_DAYS
        deleted = messages_purge()
        self.stdout.write(f"Deleted {deleted} messages older than {days} days.")
