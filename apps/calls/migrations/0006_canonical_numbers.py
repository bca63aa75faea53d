"""Numbers stored as written before they were made canonical become their canonical E.164, so the
caps count them as the numbers they dial (apps.core.phones)."""

from django.db import migrations

from apps.core.phones import canonicalize_stored


def forwards(apps, schema_editor):
    canonicalize_stored(apps.get_model("calls", "Call"), "to_number", "from_number", "your_number", "caller_id")
    canonicalize_stored(apps.get_model("calls", "Quote"), "to_number", "your_number", "caller_id")


class Migration(migrations.Migration):
    dependencies = [("calls", "0005_transcript_requests")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop, elidable=True)]
