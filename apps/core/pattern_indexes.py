"""Dropping PostgreSQL's ``varchar_pattern_ops`` companion indexes where nothing can use them.

For every indexed ``varchar`` column (primary keys, unique columns, foreign keys to a
``CharField`` key such as ``usr_...``), Django's PostgreSQL backend adds a second index with
that operator class so that a case-sensitive ``LIKE 'prefix%'`` can use an index. Our ids,
digests and foreign keys are only ever compared whole: the admin's searches are
``icontains`` (``UPPER(...) LIKE``), which no pattern index serves. Each such index still
takes an entry on every insert, and on every update that cannot stay on its page, of the
hottest writes we have (a token refresh writes three rows and retires a fourth).

``drop_pattern_indexes`` gives a migration operation that drops them on PostgreSQL and, on
the way back, recreates them exactly as Django made them. Other databases have none.
"""

from django.db import migrations

FIND_PATTERN_INDEXES = """
    SELECT indexname FROM pg_indexes
    WHERE schemaname = current_schema() AND tablename = %s AND indexdef LIKE %s
"""


def _fields(apps, columns_by_model: dict[str, tuple[str, ...]]):
    for label, field_names in columns_by_model.items():
        model = apps.get_model(label)
        for name in field_names:
            yield model, model._meta.get_field(name)


def drop_pattern_indexes(**columns_by_model: tuple[str, ...]) -> migrations.RunPython:
    """An operation dropping these fields' pattern indexes: ``drop_pattern_indexes(**{"app.Model": ("field",)})``."""

    def drop(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for model, field in _fields(apps, columns_by_model):
            with schema_editor.connection.cursor() as cursor:
                cursor.execute(
                    FIND_PATTERN_INDEXES,
                    [model._meta.db_table, f"%({field.column} varchar_pattern_ops)"],
                )
                names = [row[0] for row in cursor.fetchall()]
            for name in names:
                schema_editor.execute(schema_editor._delete_index_sql(model, name))

    def recreate(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for model, field in _fields(apps, columns_by_model):
            statement = schema_editor._create_like_index_sql(model, field)
            if statement is not None:
                schema_editor.execute(statement)

    return migrations.RunPython(drop, recreate)
