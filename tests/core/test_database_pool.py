"""Django's own connection pool (DATABASE_POOL) and a transaction pooler in front of PostgreSQL
(DATABASE_POOLER): docs/decisions/scale-out.md, "PgBouncer and connection pools".

With the pool on, requests are served from a few connections lent again and again, each still
carrying the statement bound, and a statement past it is still the contract's 503. Behind
DATABASE_POOLER the service sends no start-up parameter PgBouncer would refuse: the bound is the
role's (here the test database's), and a process whose role has none says so once.
"""

import json
import logging
import os
import subprocess
import sys

import pytest
from django.db import OperationalError, connection, connections

from apps.core import statements
from apps.core.postgresql import base as service_backend
from tests.support.envelope import assert_error

on_postgresql = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's connection pool")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


@pytest.fixture
def pooled(settings):
    """The default connection served from a pool of at most two, as DATABASE_POOL=2 configures it;
    ``pooled(seconds)`` lowers the statement bound of the pool's connections first."""
    settings_dict = connection.settings_dict
    kept = settings_dict["CONN_MAX_AGE"], dict(settings_dict["OPTIONS"])

    def start(seconds: float | None = None):
        if seconds is not None:
            settings.DATABASE_STATEMENT_TIMEOUT = seconds
        connection.close()
        connection.close_pool()
        settings_dict["CONN_MAX_AGE"] = 0
        settings_dict["OPTIONS"]["pool"] = {"min_size": 1, "max_size": 2, "timeout": 5}
        return connection.pool

    yield start
    connection.close()
    connection.close_pool()
    settings_dict["CONN_MAX_AGE"], settings_dict["OPTIONS"] = kept[0], kept[1]


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_requests_are_served_from_the_pool_and_its_connections_are_reused(pooled, api, bearer):
    pool = pooled()
    pids = set()
    for _ in range(6):
        assert api.get("/v1/me", **bearer).status_code == 200
        pids.add(backend_pid())
        # What the end of a request does with CONN_MAX_AGE 0 (Django's test client skips it):
        # the connection goes back to the pool, and the thread holds none between requests.
        connection.close()
        assert connection.connection is None
    stats = pool.get_stats()
    # Six requests, one at a time, on the pool's at most two server connections, lent in turn.
    assert len(pids) <= 2 and stats["connections_num"] <= 2 and stats["requests_num"] >= 6


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_every_pooled_connection_carries_the_bound_and_the_prepare_threshold(pooled):
    pooled(3)
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] == "3s"
    assert connection.connection.prepare_threshold == connection.settings_dict["OPTIONS"]["prepare_threshold"]
    with connection.prepared_cursor() as cursor:
        cursor.execute("SELECT %s::int + 1", [41])
        assert cursor.fetchone() == (42,)


@on_postgresql
@pytest.mark.django_db(transaction=True)
@pytest.mark.urls("tests.core.urls_slow")
def test_a_statement_past_the_bound_is_503_and_the_pool_keeps_serving(pooled, api, bearer):
    pool = pooled(0.2)
    response = api.get("/v1/_slow")
    assert_error(response, 503, "service_unavailable", type_="api_error")
    assert response["Retry-After"] == "5"
    for _ in range(3):
        assert api.get("/v1/me", **bearer).status_code == 200
    assert pool.get_stats()["connections_num"] <= 2


@pytest.fixture
def behind_a_pooler(settings):
    """A new connection configured as DATABASE_POOLER=pgbouncer-transaction configures it, whose
    process has not yet read the role's bound."""
    settings.DATABASE_POOLER = "pgbouncer-transaction"
    settings.DATABASE_STATEMENT_TIMEOUT = 0.2
    opened = []
    service_backend._role_bound_read = False

    def open_one():
        wrapper = connections.create_connection("default")
        wrapper.ensure_connection()
        opened.append(wrapper)
        return wrapper

    yield open_one
    for wrapper in opened:
        wrapper.close()
    service_backend._role_bound_read = False


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_behind_a_pooler_no_start_up_option_is_sent_and_a_role_without_a_bound_is_named(behind_a_pooler, caplog):
    with caplog.at_level(logging.WARNING, logger="apps.core.statements"):
        wrapper = behind_a_pooler()
        assert "options" not in wrapper.get_connection_params()
        behind_a_pooler()  # the same process: read once
    lines = [r.getMessage() for r in caplog.records if "ALTER ROLE" in r.getMessage()]
    assert len(lines) == 1 and "statement_timeout is 0 ms" in lines[0]


@pytest.fixture
def database_bound():
    """statement_timeout set on the test database, as an operator sets it on the role behind a pooler."""
    name = connection.settings_dict["NAME"]
    with connection.cursor() as cursor:
        cursor.execute(f'ALTER DATABASE "{name}" SET statement_timeout = 200')
    yield
    with connection.cursor() as cursor:
        cursor.execute(f'ALTER DATABASE "{name}" RESET statement_timeout')


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_behind_a_pooler_the_roles_bound_cancels_and_is_still_503(behind_a_pooler, database_bound, caplog):
    with caplog.at_level(logging.WARNING, logger="apps.core.statements"):
        wrapper = behind_a_pooler()
    assert not [r for r in caplog.records if "ALTER ROLE" in r.getMessage()]
    with wrapper.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] == "200ms"
    with pytest.raises(OperationalError) as cancelled, wrapper.cursor() as cursor:
        cursor.execute("SELECT pg_sleep(5)")
    assert statements.is_statement_timeout(cancelled.value)


def configured(**env) -> dict:
    """The database settings config/settings.py makes of these variables (no connection opened)."""
    code = (
        "import json, config.settings as s; d = s.DATABASES['default']; "
        "print(json.dumps({'max_age': d['CONN_MAX_AGE'], 'options': d['OPTIONS'], "
        "'no_server_side_cursors': d.get('DISABLE_SERVER_SIDE_CURSORS', False)}))"
    )
    variables = {**os.environ, "SECRET_KEY": "x" * 50, "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/x", **env}
    for name in ("DATABASE_POOL", "DATABASE_POOLER", "DATABASE_PREPARE_THRESHOLD"):
        if name not in env:
            variables.pop(name, None)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=variables, capture_output=True, text=True)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1]}
    return json.loads(done.stdout)


def test_the_pool_is_off_by_default_and_on_it_replaces_kept_connections():
    assert configured() == {"max_age": 60, "options": {"prepare_threshold": 5}, "no_server_side_cursors": False}
    on = configured(DATABASE_POOL="8")
    assert on["max_age"] == 0
    assert on["options"]["pool"] == {"min_size": 1, "max_size": 8, "timeout": 5}
    assert "DATABASE_POOL" in configured(DATABASE_POOL="eight")["error"]


def test_the_transaction_pooler_prepares_nothing_and_declares_no_server_side_cursor():
    behind = configured(DATABASE_POOLER="pgbouncer-transaction")
    assert behind["options"]["prepare_threshold"] is None and behind["no_server_side_cursors"] is True
    assert (
        "DATABASE_PREPARE_THRESHOLD"
        in configured(DATABASE_POOLER="pgbouncer-transaction", DATABASE_PREPARE_THRESHOLD="5")["error"]
    )
    assert "DATABASE_POOLER" in configured(DATABASE_POOLER="pgbouncer-session")["error"]
