from django.conf import settings
from django.core.management.base import BaseCommand

from apps.webhooks.fanout import purge_events


class Command(BaseCommand):
    help = (
        "Delete webhook events (and their delivery attempts) past WEBHOOK_EVENT_RETENTION_DAYS now; "
        "the worker does it every day."
    )

    def handle(self, *args, **options):
        deleted = purge_events()
        days = settings.WEBHOOK_EVENT_RETENTION_DAYS
        self.stdout.write(f"Deleted {deleted} webhook events older than {days} days.")
