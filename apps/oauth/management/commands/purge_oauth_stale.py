"""`manage.py purge_oauth_stale`: delete consent transactions and authorization
codes more than a day past their expiry, now (the worker does it every day: ``oauth.purge_stale``)."""

from django.core.management.base import BaseCommand

from apps.oauth.services import oauth_purge_stale


class Command(BaseCommand):
    help = "Delete consent transactions and authorization codes more than a day past expiry."

    def handle(self, *args, **options):
        transactions, codes = oauth_purge_stale()
        self.stdout.write(f"Deleted {transactions} consent transaction(s) and {codes} code(s).")
