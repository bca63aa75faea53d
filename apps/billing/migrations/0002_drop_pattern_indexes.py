from django.db import migrations

from apps.core.pattern_indexes import drop_pattern_indexes


class Migration(migrations.Migration):
    """Ledger ids are only ever compared whole (apps/core/pattern_indexes.py): no LIKE index to keep up on
    every append. A migration of its own: the initial one creates its indexes only when it ends."""

    dependencies = [
        ("billing", "0001_initial"),
    ]

    operations = [
        drop_pattern_indexes(**{"billing.BalanceTransaction": ("id",)}),
    ]
