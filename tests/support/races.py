"""Races on PostgreSQL: several threads, each on its own connection, let go at one moment.

In-memory SQLite gives each thread its own empty database and serialises every write, so a race
can only be shown on PostgreSQL (CI runs it there); ``postgresql_only`` skips the test elsewhere.
"""

import threading

import pytest
from django.db import connection, connections

postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs PostgreSQL: threads on in-memory SQLite do not share one database, and SQLite serialises writes",
)

# Long enough for any request of the suite; a thread still running after it is reported, not waited on.
WAIT_SECONDS = 60


def at_once(*calls) -> list:
    """Each call on its own thread, all released together by one barrier; their results, in order.

    Each thread closes its connections when done. A call that raised, or did not finish in time,
    fails the test (a thread must not die silently).
    """
    barrier = threading.Barrier(len(calls))
    results, errors = [None] * len(calls), []

    def run(i):
        try:
            barrier.wait(WAIT_SECONDS)
            results[i] = calls[i]()
        except Exception as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_SECONDS)
    assert not any(thread.is_alive() for thread in threads), "a racing thread did not finish"
    assert errors == []
    return results


def together(work, n: int) -> list:
    """``work(i)`` for each i of ``range(n)``, at once (``at_once``); the results, in order of i."""
    return at_once(*[lambda i=i: work(i) for i in range(n)])
