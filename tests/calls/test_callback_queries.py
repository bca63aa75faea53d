"""Statements a callback costs on a cached credential: a quote at most 2 (its one read, its row), a
placement at most 4 (the key's claim, the balance lock, its one read, its writes with its stored
answer), an end at most 2 (the call with whether the carrier has events due, its writes; 3 when
it charges, with the balance row's lock): at most 8 for the three. The call.* webhook events the state service publishes
(the read of the endpoints that hear of them, the event's row) are the webhooks app's, counted apart
and bounded by its own tests. PostgreSQL writes a placement's or an end's rows in one
statement; SQLite, which has no data-modifying WITH, one each (the bounds are PostgreSQL's)."""

import contextlib
import json
import uuid

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from apps.jobs.public import run_due
from tests.calls.callbacks import CALLEE, STAYS, frozen_clock, ready
from tests.support.credentials import cached_key_secret

# Outside a test transaction, as a request runs: its own transactions are BEGIN and COMMIT, not savepoints.
pytestmark = pytest.mark.django_db(transaction=True)

MAX_QUOTE, MAX_PLACE, MAX_END = 2, 4, 2
MAX_TOGETHER = 8
# An end that charges (the call was answered) also locks the balance row it writes the charge on.
MAX_END_CHARGED = MAX_END + 1


@pytest.fixture
def secret(store, owner):
    ready(owner)
    return cached_key_secret(owner, ["calls:place", "calls:read"])


def post(secret, path, body=None, key=None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    if key:
        headers["HTTP_IDEMPOTENCY_KEY"] = key
    data = "" if body is None else json.dumps(body)
    return Client().post(path, data=data, content_type="application/json", **headers)


TRANSACTION_CONTROL = {"BEGIN", "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK"}


def _publishes_webhook_event(sql: str) -> bool:
    # The call.* webhook events the state service publishes are the webhooks app's statements,
    # bounded by its own tests; these bounds are the call's own.
    return '"webhooks_' in sql.split(" WHERE ")[0]


@contextlib.contextmanager
def at_most(n: int, *, rows_written: int = 6):
    """At most ``n`` statements (BEGIN and COMMIT, which psycopg logs, are not statements of the answer).
    SQLite sends one statement per written row where PostgreSQL sends one for all: ``rows_written`` more."""
    with CaptureQueriesContext(connection) as captured:
        yield
    sent = [
        q["sql"]
        for q in captured.captured_queries
        if q["sql"].strip().upper() not in TRANSACTION_CONTROL and not _publishes_webhook_event(q["sql"])
    ]
    bound = n if connection.vendor == "postgresql" else n + rows_written
    assert len(sent) <= bound, "\n".join(sent)


def test_quote_place_end(secret):
    with at_most(MAX_QUOTE):
        quote = post(secret, "/v1/quotes", {"to": CALLEE})
    assert quote.status_code == 201, quote.content
    with at_most(MAX_PLACE):
        placed = post(secret, "/v1/calls", {"quote": quote.json()["id"]}, key=str(uuid.uuid4()))
    assert placed.status_code == 201, placed.content
    with at_most(MAX_END):
        ended = post(secret, f"/v1/calls/{placed.json()['id']}/end")
    assert ended.status_code == 200 and ended.json()["status"] == "canceled"


def test_a_quote_its_placement_and_its_end_together(secret):
    # SQLite: a placement's hold, call, quote, carrier work, audit row and stored answer, and an end's
    # call, hold and audit row, each a statement of its own (PostgreSQL: one for each request).
    with at_most(MAX_TOGETHER, rows_written=(6 - 1) + (3 - 1)):
        quote = post(secret, "/v1/quotes", {"to": CALLEE})
        placed = post(secret, "/v1/calls", {"quote": quote.json()["id"]}, key=str(uuid.uuid4()))
        ended = post(secret, f"/v1/calls/{placed.json()['id']}/end")
    assert (quote.status_code, placed.status_code, ended.status_code) == (201, 201, 200)


def test_ending_a_call_in_progress_charges_within_the_bound(secret):
    with frozen_clock() as clock:
        quote = post(secret, "/v1/quotes", {"to": STAYS}).json()
        call = post(secret, "/v1/calls", {"quote": quote["id"]}, key=str(uuid.uuid4())).json()
        run_due(now=clock.tick(10))  # answered at +9
        clock.tick(30)
        with at_most(MAX_END_CHARGED):
            ended = post(secret, f"/v1/calls/{call['id']}/end")
    assert ended.json()["status"] == "completed" and ended.json()["amount"] == 6
