"""Writes to the rate deck: only ever replaced whole."""

from collections.abc import Iterable
from itertools import islice

from django.db import connection, transaction

from .models import Rate

# Rows per INSERT: large enough that 60,000 rows are a dozen statements, small enough
# for SQLite's bound-parameter limit (Django lowers it further there if needed).
BATCH_SIZE = 5000


def rate_deck_replace(*, rates: Iterable[Rate]) -> int:
    """Replaces the whole deck with ``rates`` in one transaction; readers see the old deck or the new one.

    ``rates`` is read a batch at a time (a file's rows, apps/rates/deck.py): memory is one batch's.
    An exception raised while reading them rolls everything back.
    """
    rows = iter(rates)
    count = 0
    with transaction.atomic():
        Rate.objects.all().delete()
        while batch := list(islice(rows, BATCH_SIZE)):
            Rate.objects.bulk_create(batch, batch_size=BATCH_SIZE)
            count += len(batch)
    if connection.vendor == "postgresql" and not connection.in_atomic_block:
        # The old deck's rows are dead now: reclaim them and refresh the planner's statistics at
        # once rather than when autovacuum comes by, so that a country's estimate is an
        # index-only scan from the first request (12 ms through dead rows, 0.3 ms after).
        with connection.cursor() as cursor:
            cursor.execute(f"VACUUM ANALYZE {Rate._meta.db_table}")
    return count
