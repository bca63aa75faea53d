"""Deleting what is past its keeping time in bounded batches: a backlog never holds a long lock."""

from django.db import transaction
from django.db.models import QuerySet


def delete_in_batches(rows: QuerySet, *, batch_size: int) -> int:
    """Delete every row of ``rows`` (re-read for each batch), ``batch_size`` at a time, each batch in
    its own transaction; returns how many of ``rows``' model were deleted."""
    model = rows.model
    deleted = 0
    while ids := list(rows.values_list("pk", flat=True)[:batch_size]):
        with transaction.atomic(using=rows.db):
            deleted += model._default_manager.filter(pk__in=ids).delete()[1].get(model._meta.label, 0)
    return deleted
