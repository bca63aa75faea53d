"""Numbers and caller IDs stored as written before numbers were made canonical become their
canonical E.164 (apps.core.phones)."""

from django.db import migrations

from apps.core.phones import canonicalize_stored


def forwards(apps, schema_editor):
    canonicalize_stored(apps.get_model("numbers", "Number"), "number")
    canonicalize_stored(apps.get_model("numbers", "CallerId"), "number")


class Migration(migrations.Migration):
    dependencies = [("numbers", "0002_drop_pattern_indexes")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop, elidable=True)]
