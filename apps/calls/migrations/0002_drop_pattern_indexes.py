from django.db import migrations

from apps.core.pattern_indexes import drop_pattern_indexes


class Migration(migrations.Migration):
    """Call and transcript ids are compared whole, never by LIKE prefix (apps/core/pattern_indexes.py).

    A migration of its own: Django creates the pattern indexes at the end of the
    migration that creates the table, after any operation in it.
    """

    dependencies = [
        ("calls", "0001_initial"),
    ]

    operations = [
        drop_pattern_indexes(**{"calls.Call": ("id",), "calls.Transcript": ("id", "call")}),
    ]
