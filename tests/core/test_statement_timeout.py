"""No statement holds a worker: the database cancels one past DATABASE_STATEMENT_TIMEOUT (PostgreSQL's
statement_timeout, SQLite's progress handler), the request
is answered with the contract's 503 (envelope, Retry-After, Request-Id), and the same process goes
on serving. Commands of manage.py get DATABASE_COMMAND_STATEMENT_TIMEOUT (apps/core/statements.py)."""

import logging

import pytest
from django.db import connection

from apps.core import statements
from tests.core.urls_slow import run_a_slow_statement
from tests.support.envelope import assert_error
from tests.support.mcp import McpClient, install_fake_tokens

on_postgresql = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's statement_timeout")


@pytest.fixture
def command_role():
    yield statements.run_as_command
    statements.run_as_command(["pytest"])


@pytest.mark.parametrize(
    ("argv", "bound"),
    [
        (["manage.py", "migrate"], 900_000),
        (["manage.py", "import_rates", "deck.csv"], 900_000),
        (["manage.py", "run_worker"], 900_000),
        (["manage.py", "runserver"], 5_000),  # a web server: the requests' bound
        (["manage.py"], 5_000),
    ],
)
def test_commands_get_the_longer_bound_and_web_servers_the_requests_bound(command_role, settings, argv, bound):
    settings.DATABASE_STATEMENT_TIMEOUT = 5
    settings.DATABASE_COMMAND_STATEMENT_TIMEOUT = 900
    command_role(argv)
    assert statements.statement_timeout_ms() == bound


def test_a_process_that_is_not_manage_py_gets_the_requests_bound(settings):
    settings.DATABASE_STATEMENT_TIMEOUT = 2.5
    assert statements.statement_timeout_ms() == 2_500


@pytest.fixture
def bound(settings):
    """The statement bound lowered to 200 ms on a new connection; the default's connection after."""

    def lower(seconds: float):
        settings.DATABASE_STATEMENT_TIMEOUT = seconds
        connection.close()

    yield lower
    connection.close()


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_every_connection_carries_the_bound(bound, settings):
    bound(3)
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] == "3s"


@pytest.mark.django_db(transaction=True)
@pytest.mark.urls("tests.core.urls_slow")
def test_a_statement_past_the_bound_is_503_and_the_worker_keeps_serving(api, bearer, bound, caplog):
    bound(0.2)
    with caplog.at_level(logging.WARNING):
        response = api.get("/v1/_slow")
    error = assert_error(response, 503, "service_unavailable", type_="api_error")
    assert response["Retry-After"] == "5"
    assert response["Request-Id"].startswith("req_") and error["request_id"] == response["Request-Id"]
    assert "statement" not in error["message"].lower()  # no internal detail
    # One line for the operator, naming the path; no traceback.
    lines = [r for r in caplog.records if "statement cancelled" in r.getMessage()]
    assert len(lines) == 1 and "/v1/_slow" in lines[0].getMessage() and lines[0].exc_info is None
    # The same process, on the same connection, answers the next requests.
    assert api.get("/v1/me", **bearer).status_code == 200
    assert api.get("/v1/me", **bearer).status_code == 200
    assert connection.connection is not None and connection.is_usable()


@pytest.mark.django_db(transaction=True)
def test_a_tool_statement_past_the_bound_is_503_on_mcp(user, settings, bound, monkeypatch):
    from apps.contacts import mcp_tools

    bound(0.2)
    mcp = McpClient(install_fake_tokens(settings).issue(user, scopes=frozenset({"contacts:read"})))
    call = {"name": "svc_search_contacts", "arguments": {"query": "ana"}}
    real = mcp_tools.selectors.contact_list

    def slow(**kwargs):
        run_a_slow_statement()
        return real(**kwargs)

    monkeypatch.setattr(mcp_tools.selectors, "contact_list", slow)
    response = mcp.request("tools/call", call)
    assert_error(response, 503, "service_unavailable", type_="api_error")
    assert response["Retry-After"] == "5"
    monkeypatch.setattr(mcp_tools.selectors, "contact_list", real)
    again = mcp.request("tools/call", call)
    assert again.status_code == 200 and again.json()["result"]["isError"] is False


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's progress handler")
@pytest.mark.django_db(transaction=True)
def test_on_sqlite_no_bound_means_no_interruption(bound):
    bound(0)
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000) SELECT count(*) FROM c"
        )
        assert cursor.fetchone()[0] == 200_000
