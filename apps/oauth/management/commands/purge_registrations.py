"""`manage.py purge_registrations`: delete self-registered clients never used for 30 days (docs/spec.md 4.3, 8.5).

The worker does it every day (the ``oauth.purge_registrations`` schedule); this runs it
now. It also frees room under the global cap of 5,000 unexpired self-registered clients.
"""

from django.core.management.base import BaseCommand

from apps.oauth.registration.services import client_purge_unused


class Command(BaseCommand):
    help = "Delete dynamically registered clients that were never used within 30 days of registering."

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="Only count the clients that would be deleted.")

    def handle(self, *args, dry_run=False, **options):
        count = client_purge_unused(dry_run=dry_run)
        verb = "Would delete" if dry_run else "Deleted"
        self.stdout.write(f"{verb} {count} unused registration(s).")
