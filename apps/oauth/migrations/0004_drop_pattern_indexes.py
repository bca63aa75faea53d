from django.db import migrations

from apps.core.pattern_indexes import drop_pattern_indexes


class Migration(migrations.Migration):
    """The token endpoint's rows keep only the indexes a lookup uses (apps/core/pattern_indexes.py)."""

    dependencies = [
        ("oauth", "0003_application_client_id_default"),
    ]

    operations = [
        drop_pattern_indexes(
            **{
                "oauth.AccessToken": ("user", "token_checksum"),
                "oauth.RefreshToken": ("user",),
                "oauth.Grant": ("user", "code"),
            }
        ),
    ]
