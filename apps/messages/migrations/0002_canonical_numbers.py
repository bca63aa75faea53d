"""Messages' numbers and numeric senders stored as written before numbers were made canonical
become their canonical E.164 (apps.core.phones); alphanumeric senders stay."""

from django.db import migrations

from apps.core.phones import canonicalize_stored


def forwards(apps, schema_editor):
    canonicalize_stored(apps.get_model("inbox", "Message"), "to_number", "from_sender")


class Migration(migrations.Migration):
    dependencies = [("inbox", "0001_initial")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop, elidable=True)]
