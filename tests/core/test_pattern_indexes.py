"""apps/core/pattern_indexes.py: the token endpoint's tables keep only indexes that a lookup uses."""

from types import SimpleNamespace

import pytest
from django.apps import apps
from django.db import connection

from apps.core.pattern_indexes import drop_pattern_indexes

pytestmark = pytest.mark.django_db(transaction=False)

on_postgresql = pytest.mark.skipif(connection.vendor != "postgresql", reason="pattern indexes are PostgreSQL's")

TOKEN_ENDPOINT_TABLES = ("oauth_accesstoken", "oauth_refreshtoken", "oauth_grant", "audit_auditevent")
FIELDS = {
    "oauth.AccessToken": ("user", "token_checksum"),
    "oauth.RefreshToken": ("user",),
    "oauth.Grant": ("user", "code"),
    "audit.AuditEvent": ("id",),
}


def _indexes(table: str) -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = %s",
            [table],
        )
        return dict(cursor.fetchall())


def _pattern_indexes() -> set[str]:
    return {
        name
        for table in TOKEN_ENDPOINT_TABLES
        for name, definition in _indexes(table).items()
        if "varchar_pattern_ops" in definition
    }


def _run(direction: str) -> None:
    operation = drop_pattern_indexes(**FIELDS)
    with connection.schema_editor() as editor:
        (operation.code if direction == "forward" else operation.reverse_code)(apps, editor)


@on_postgresql
def test_the_migrated_schema_has_no_pattern_index_on_the_token_endpoints_tables():
    assert _pattern_indexes() == set()


@on_postgresql
def test_every_lookup_column_keeps_its_plain_index():
    for table, column in (
        ("oauth_accesstoken", "token_checksum"),
        ("oauth_accesstoken", "user_id"),
        ("oauth_refreshtoken", "user_id"),
        ("oauth_grant", "code"),
        ("oauth_grant", "user_id"),
        ("audit_auditevent", "id"),
    ):
        definitions = _indexes(table).values()
        assert any(d.endswith(f"USING btree ({column})") for d in definitions), (table, column)
    # The audit log's user lookups (the account's log, nulling on deletion) lead the composite index.
    assert any(d.endswith("USING btree (user_id, created DESC)") for d in _indexes("audit_auditevent").values())


@on_postgresql
def test_reversing_recreates_djangos_indexes_and_reapplying_drops_them():
    _run("backward")
    recreated = _pattern_indexes()
    # Exactly one per field, named as Django's PostgreSQL backend names them.
    assert len(recreated) == sum(len(fields) for fields in FIELDS.values())
    assert all(name.endswith("_like") for name in recreated)
    _run("forward")
    assert _pattern_indexes() == set()


def test_other_databases_are_left_alone():
    # Whatever database the suite runs on, a schema editor of another vendor is sent nothing.
    editor = SimpleNamespace(connection=SimpleNamespace(vendor="sqlite"), execute=pytest.fail)
    drop_pattern_indexes(**FIELDS).code(apps, editor)
    drop_pattern_indexes(**FIELDS).reverse_code(apps, editor)
