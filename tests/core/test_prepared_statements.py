"""apps/core/postgresql: the statements compiled once (apps/core/sql.py) are prepared on the server once
sent often on a connection, read what the ORM reads before and after, and are logged with their values;
every other statement keeps Django's client-side binding and is never prepared."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import DatabaseError, connection, transaction
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import User
from apps.core.sql import CompiledQuery
from tests.support.factories import UserFactory

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements are PostgreSQL's"),
    pytest.mark.django_db(transaction=True),
]

ROOT = Path(__file__).resolve().parents[2]


def _by_email(email):
    return User.objects.filter(email=email).only("id", "email")[:1]


BY_EMAIL = CompiledQuery(_by_email)


def prepared() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE from_sql = false")
        return [row[0] for row in cursor.fetchall()]


def of_users(statements: list[str]) -> list[str]:
    return [statement for statement in statements if '"accounts_user"' in statement]


@pytest.fixture
def fresh_connection():
    # Prepared statements belong to a connection: start from one that has none.
    connection.close()
    yield
    connection.close()


def test_the_service_prepares_after_psycopgs_own_threshold():
    assert connection.settings_dict["OPTIONS"]["prepare_threshold"] == 5


def test_a_compiled_statement_is_prepared_once_sent_often_and_reads_what_the_orm_reads(fresh_connection):
    users = [UserFactory() for _ in range(3)]
    for _ in range(4):
        for user in users:
            found = BY_EMAIL.first(email=user.email)
            assert (found.pk, found.email) == (user.pk, user.email)
            assert found.get_deferred_fields() == _by_email(user.email).get().get_deferred_fields()
    assert BY_EMAIL.first(email="nobody@example.com") is None
    (statement,) = of_users(prepared())
    assert "$1" in statement and "WHERE" in statement


def test_other_statements_are_never_prepared(fresh_connection):
    user = UserFactory()
    for _ in range(10):
        assert User.objects.filter(email=user.email).only("id", "email").first().pk == user.pk
    assert of_users(prepared()) == []


def test_the_query_log_shows_each_statement_with_its_values(fresh_connection):
    user = UserFactory()
    for _ in range(6):
        BY_EMAIL.first(email=user.email)
    with CaptureQueriesContext(connection) as captured:
        BY_EMAIL.first(email=user.email)
    (logged,) = captured.captured_queries
    assert f"'{user.email}'" in logged["sql"] and "$1" not in logged["sql"]


def test_a_statement_prepared_in_a_transaction_that_failed_still_runs(fresh_connection):
    user = UserFactory()
    for _ in range(3):
        BY_EMAIL.first(email=user.email)
    with pytest.raises(DatabaseError), transaction.atomic():
        for _ in range(4):  # prepared inside the transaction
            assert BY_EMAIL.first(email=user.email).pk == user.pk
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 / 0")
    for _ in range(8):
        assert BY_EMAIL.first(email=user.email).pk == user.pk


def test_a_statement_prepared_before_a_failed_transaction_still_runs(fresh_connection):
    user = UserFactory()
    for _ in range(6):
        BY_EMAIL.first(email=user.email)
    assert len(of_users(prepared())) == 1
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT 1 / 0")
    assert BY_EMAIL.first(email=user.email).pk == user.pk


def _start_with_threshold(value: str, code: str = "") -> subprocess.CompletedProcess:
    """A process that sets the service up with ``DATABASE_PREPARE_THRESHOLD=value``, then runs ``code``."""
    env = {**os.environ, "DATABASE_PREPARE_THRESHOLD": value, "DJANGO_SETTINGS_MODULE": "config.settings"}
    program = "import django; django.setup(); from django.conf import settings; " + code
    return subprocess.run([sys.executable, "-c", program], cwd=ROOT, env=env, capture_output=True, text=True)


@pytest.mark.parametrize(("value", "threshold"), [("none", "None"), ("None", "None"), ("1", "1"), ("", "5")])
def test_database_prepare_threshold_sets_it_and_none_prepares_nothing(value, threshold):
    done = _start_with_threshold(value, "print(settings.DATABASES['default']['OPTIONS']['prepare_threshold'])")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == threshold


def test_a_threshold_that_is_not_a_number_stops_the_service_from_starting():
    done = _start_with_threshold("often")
    assert done.returncode != 0 and "DATABASE_PREPARE_THRESHOLD must be a whole number" in done.stderr


def test_with_no_threshold_nothing_is_prepared(fresh_connection):
    user = UserFactory()
    connection.ensure_connection()
    connection.connection.prepare_threshold = None  # what DATABASE_PREPARE_THRESHOLD=none sets at connect
    for _ in range(10):
        assert BY_EMAIL.first(email=user.email).pk == user.pk
    assert of_users(prepared()) == []
