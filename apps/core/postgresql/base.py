"""Django's PostgreSQL backend, with two changes that keep its behaviour and cost less a request.

A health check that costs no round trip while the connection is idle. Django checks
a kept connection before a request's first query (``CONN_HEALTH_CHECKS``) by sending
``SELECT 1``: on a read of one statement, that is a second round trip, about a tenth
of the worker's CPU for the request. A server that ends a connection (a restart,
``pg_terminate_backend``, an idle timeout, a pooler closing it) first sends an error
and closes the socket, so an idle connection whose socket has nothing to read has not
been ended; when there is something to read, Django's own ``SELECT 1`` decides. A
connection the network lost without a word is caught by neither check until its
query times out, as before.

A cursor for the statements compiled once (apps/core/sql.py), ``prepared_cursor()``:
it binds parameters on the server, so psycopg prepares a statement once it has been
sent ``OPTIONS["prepare_threshold"]`` times on a connection (Django's knob; None, its
default, prepares nothing). PostgreSQL then skips parsing it and, on a generic plan,
planning it: for a page of calls, planning took three times as long as running it. Every other statement
keeps Django's client-side binding, which prepares nothing.

And the bound of a statement (apps/core/statements.py), asked for when the connection opens;
behind a pooler that refuses it (``DATABASE_POOLER``) the bound is the database role's, read
once a process and named in a warning when it is missing or looser.

With Django's pool (``DATABASE_POOL``) the pool opens the connections with the parameters
above, so each pooled connection carries the bound and the prepare threshold; the pool checks a
connection as it lends it, and Django then skips the health check above.
"""

import select

from django.db.backends.postgresql import base, operations
from django.db.backends.postgresql.psycopg_any import register_tzloader
from psycopg import _queries, errors
from psycopg.pq import Format

from apps.core import statements

_PREPARED = "\x00prepared"  # a name no server-side cursor has: create_cursor's sign for prepared_cursor()


class _CompiledStatement(_queries.PostgresQuery):
    """psycopg's conversion of a statement's placeholders, kept for every statement of the prepared
    cursor. psycopg keeps it only for statements under 4,096 characters and 50 parameters (an ORM's
    longer ones rarely repeat), and a quote's one read is longer: finding its placeholders again on
    every request took a tenth of the quote. The statements of this cursor are the compiled ones
    (apps/core/sql.py), a bounded set sent again and again; psycopg's cache of 128 stays its own."""

    def convert(self, query, vars):
        if vars is None or not isinstance(query, str | bytes):
            return super().convert(query, vars)
        query = self._ensure_bytes(query)
        self.query, self._want_formats, self._order, self._parts = _queries._query2pg(query, self._tx.encoding)
        self.dump(vars)


class _PreparedCursor(base.ServerBindingCursor):
    _query_cls = _CompiledStatement


_role_bound_read = False  # behind DATABASE_POOLER: whether this process has read the role's bound


class DatabaseOperations(operations.DatabaseOperations):
    def last_executed_query(self, cursor, sql, params):
        # What Django logs (a test's CaptureQueriesContext, DEBUG's connection.queries): a statement
        # bound on the server is logged with its values in place, as Django logs one bound here.
        if isinstance(cursor, base.ServerBindingCursor):
            try:
                return self.compose_sql(sql, params)
            except errors.DataError:
                return None
        return super().last_executed_query(cursor, sql, params)


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations

    def get_connection_params(self):
        # The bound of every statement on this connection (apps/core/statements.py), sent with the
        # connection's start-up parameters: no round trip of its own.
        params = super().get_connection_params()
        timeout = statements.statement_timeout_ms()
        if timeout and statements.sent_on_connect():
            params["options"] = f"{params.get('options', '')} -c statement_timeout={timeout}".strip()
        return params

    def init_connection_state(self):
        super().init_connection_state()
        global _role_bound_read
        if not statements.sent_on_connect() and not _role_bound_read:
            _role_bound_read = True
            # One statement a process: behind a transaction pooler every server connection has the role's settings.
            row = self.connection.execute(
                "SELECT (extract(epoch FROM current_setting('statement_timeout')::interval) * 1000)::bigint"
            ).fetchone()
            statements.check_role_bound(row[0])

    def is_usable(self):
        connection = self.connection
        if connection is None or connection.closed:
            return False
        poller = select.poll()
        poller.register(connection.fileno(), select.POLLIN)
        if not poller.poll(0):
            return True
        return super().is_usable()

    def prepared_cursor(self):
        """A cursor as ``cursor()`` gives it (health check, errors, query log), binding on the server."""
        return self._cursor(name=_PREPARED)

    def create_cursor(self, name=None):
        if name != _PREPARED:
            return super().create_cursor(name)
        cursor = _PreparedCursor(self.connection)
        # As Django's create_cursor: the cursor's time zone, where the connection's differs.
        loader = self.connection.adapters.get_loader(base.TIMESTAMPTZ_OID, Format.TEXT)
        if self.timezone != loader.timezone:
            register_tzloader(self.timezone, cursor)
        return cursor
