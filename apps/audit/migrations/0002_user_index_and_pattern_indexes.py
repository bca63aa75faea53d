import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from apps.core.pattern_indexes import drop_pattern_indexes


class Migration(migrations.Migration):
    """Every token refresh writes an audit row: it keeps only the indexes a lookup uses.

    The user's own index duplicates the leading column of audit_user_created_idx, and the
    id's pattern index serves no query (apps/core/pattern_indexes.py).
    """

    dependencies = [
        ("audit", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name="auditevent",
            name="user",
            field=models.ForeignKey(
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="audit_events",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        drop_pattern_indexes(**{"audit.AuditEvent": ("id",)}),
    ]
