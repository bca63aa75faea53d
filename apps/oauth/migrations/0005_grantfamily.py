import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def backfill_from_codes(apps, schema_editor):
    """Families whose code is still kept (codes are purged a day after expiry) get
    their row now; older connections show no redirect address until reconnected."""
    Grant = apps.get_model("oauth", "Grant")
    GrantFamily = apps.get_model("oauth", "GrantFamily")
    rows = Grant.objects.filter(user__isnull=False).values_list(
        "family", "user_id", "application_id", "redirect_uri", "created"
    )
    GrantFamily.objects.bulk_create(
        [
            GrantFamily(
                family=family, user_id=user_id, application_id=application_id, redirect_uri=uri, created=created
            )
            for family, user_id, application_id, uri, created in rows.iterator()
        ],
        batch_size=500,
        ignore_conflicts=True,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("oauth", "0004_drop_pattern_indexes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="GrantFamily",
            fields=[
                ("family", models.UUIDField(editable=False, primary_key=True, serialize=False)),
                ("redirect_uri", models.TextField()),
                ("created", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "application",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.OAUTH2_PROVIDER_APPLICATION_MODEL,
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to=settings.AUTH_USER_MODEL
                    ),
                ),
            ],
        ),
        migrations.RunPython(backfill_from_codes, migrations.RunPython.noop),
    ]
