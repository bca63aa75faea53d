"""Django's SQLite backend, with the bound of a statement (apps/core/statements.py).

SQLite has no ``statement_timeout``. It calls a progress handler every few thousand
steps of its virtual machine, and a handler that answers true interrupts the running
statement (``OperationalError: interrupted``), which leaves the connection usable and
rolls back only that statement. So each statement's deadline is set when it is sent,
and the handler interrupts one still running past it, reading its rows included:
SQLite computes most rows as they are fetched. ``statements.is_statement_timeout``
tells it apart, and the request is answered as PostgreSQL's cancelled statement is.
"""

import time

from django.db.backends.sqlite3 import base

from apps.core import statements

# Virtual machine steps between two looks at the clock: about a millisecond of work.
STEPS_BETWEEN_CHECKS = 10_000


class _Deadline:
    """When the statement now running on one connection must have finished; None: no bound."""

    __slots__ = ("at",)

    def __init__(self):
        self.at = None

    def start(self) -> None:
        bound = statements.statement_timeout_ms()
        self.at = time.monotonic() + bound / 1000 if bound else None

    def passed(self) -> bool:
        return self.at is not None and time.monotonic() > self.at


class BoundedCursor(base.SQLiteCursorWrapper):
    deadline: _Deadline

    def execute(self, query, params=None):
        self.deadline.start()
        return super().execute(query, params)

    def executemany(self, query, param_list):
        self.deadline.start()
        return super().executemany(query, param_list)


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._deadline = _Deadline()

    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        connection.set_progress_handler(self._deadline.passed, STEPS_BETWEEN_CHECKS)
        return connection

    def create_cursor(self, name=None):
        cursor = self.connection.cursor(factory=BoundedCursor)
        cursor.deadline = self._deadline
        return cursor
