"""Counting Django's SQL compilations: a compiled-once statement (apps/core/sql.py) is compiled by none
of the requests after its first."""

import re
from contextlib import contextmanager
from unittest import mock

import pytest
from django.db import connection
from django.db.models.sql.compiler import SQLCompiler

# SQLite receives dates as strings Django prepares: a statement with a date among its values (a
# cursor's position) runs through the ORM there, compiled every time, as Django would run it.
DATES_ARE_PARAMETERS = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="SQLite's dates are prepared by Django, so compiled each time"
)


def with_cursors(params: dict, rows: list) -> dict:
    """A list's query with each cursor given as an index into ``rows``, made that row's id."""
    return {k: (rows[v].id if k in ("starting_after", "ending_before") else v) for k, v in params.items()}


def second_answer_compiles_nothing(ask, first, again):
    """``ask(first)``, then ``ask(again)`` (another request of the same shape), which must send
    statements compiled by the first: no SQL compiled. Returns the second response."""
    assert ask(first).status_code == 200
    with compilations() as compiled:
        response = ask(again)
    assert response.status_code == 200, response.content
    assert compiled.call_count == 0
    return response


@contextmanager
def compilations():
    """The number of SQL compilations inside the block, as ``counted.call_count``."""
    with mock.patch.object(SQLCompiler, "as_sql", autospec=True, side_effect=SQLCompiler.as_sql) as counted:
        yield counted


SAVEPOINT = re.compile(r'"s[0-9]+_x[0-9]+"')  # a savepoint's name counts savepoints, not input


@contextmanager
def statement_texts():
    """The SQL text of every statement sent, before values are bound (savepoints' names made one):
    what a bound on a statement's shape compares for the least and the most allowed input."""
    sent = []

    def record(execute, sql, params, many, context):
        sent.append(SAVEPOINT.sub('"savepoint"', sql))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        yield sent
