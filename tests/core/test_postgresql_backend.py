"""apps/core/postgresql: a kept connection's health check sends nothing while the connection is idle, and
still finds a connection the server ended, so the next request reconnects instead of failing."""

import select
import time
from unittest import mock

import psycopg
import pytest
from django.db import connection, connections
from django.db.backends.postgresql import base as django_base

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the PostgreSQL backend's own health check"),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def kept():
    """A second connection of the service's own backend, as a worker keeps one between requests."""
    wrapper = connections.create_connection("default")
    wrapper.ensure_connection()
    yield wrapper
    wrapper.close()


def test_the_service_runs_on_this_backend():
    assert connection.settings_dict["ENGINE"] == "apps.core.postgresql"
    assert connection.settings_dict["CONN_HEALTH_CHECKS"] is True


def test_an_idle_connection_is_usable_without_a_round_trip(kept):
    with mock.patch.object(django_base.DatabaseWrapper, "is_usable", side_effect=AssertionError("SELECT 1 sent")):
        assert kept.is_usable() is True


def _readable(wrapper) -> bool:
    poller = select.poll()
    poller.register(wrapper.connection.fileno(), select.POLLIN)
    return bool(poller.poll(0))


def _ended_by_the_server(wrapper) -> None:
    pid = wrapper.connection.info.backend_pid
    with psycopg.connect(**wrapper.get_connection_params()) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])
    deadline = time.monotonic() + 5
    while not _readable(wrapper):  # the server's goodbye reaches the socket
        assert time.monotonic() < deadline, "the server never closed the connection"
        time.sleep(0.01)


def test_a_connection_the_server_ended_is_not_usable_and_the_next_request_reconnects(kept):
    _ended_by_the_server(kept)
    assert kept.is_usable() is False
    # As at the start of a request: the failed check closes it, the first query opens a new one.
    kept.health_check_done = False
    kept.close_if_health_check_failed()
    with kept.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def test_something_unexpected_to_read_is_left_to_djangos_check(kept):
    # A notification waiting on an idle connection (the service listens for none).
    kept.connection.execute("LISTEN service_health_probe")
    with psycopg.connect(**kept.get_connection_params(), autocommit=True) as other:
        other.execute("NOTIFY service_health_probe")
    deadline = time.monotonic() + 5
    while not _readable(kept):
        assert time.monotonic() < deadline, "the notification never arrived"
        time.sleep(0.01)
    with mock.patch.object(django_base.DatabaseWrapper, "is_usable", return_value=True) as djangos:
        assert kept.is_usable() is True
    assert djangos.call_count == 1
