from django.db import migrations

from apps.core.pattern_indexes import drop_pattern_indexes


class Migration(migrations.Migration):
    """Ids are only ever compared whole: no pattern index (apps/core/pattern_indexes.py). A migration
    of its own because Django creates those indexes at the end of the migration that makes the table."""

    dependencies = [
        ("numbers", "0001_initial"),
    ]

    operations = [
        drop_pattern_indexes(**{"numbers.Number": ("id",), "numbers.CallerId": ("id",)}),
    ]
