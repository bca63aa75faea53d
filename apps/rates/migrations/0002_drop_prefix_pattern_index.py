from django.db import migrations

from apps.core.pattern_indexes import drop_pattern_indexes


class Migration(migrations.Migration):
    """Lookups compare whole prefixes (IN); no LIKE 'x%' needs the varchar_pattern_ops companion of the
    primary key, and every index costs each row of a 60,000-row import. A migration of its own: the
    initial one creates its indexes only when it ends, so a drop inside it finds nothing."""

    dependencies = [("rates", "0001_initial")]

    operations = [drop_pattern_indexes(**{"rates.Rate": ("prefix",)})]
