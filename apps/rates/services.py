"""Writes to the rate deck: only ever replaced whole."""

from django.db import transaction

from .models import Rate

# Rows per INSERT: large enough that 60,000 rows are a dozen statements, small enough
# for SQLite's bound-parameter limit (Django lowers it further there if needed).
BATCH_SIZE = 5000


def rate_deck_replace(*, rates: list[Rate]) -> int:
    """Replaces the whole deck with ``rates`` in one transaction; readers see the old deck or the new one."""
    with transaction.atomic():
        Rate.objects.all().delete()
        Rate.objects.bulk_create(rates, batch_size=BATCH_SIZE)
    return len(rates)
