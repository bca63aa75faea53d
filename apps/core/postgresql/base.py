"""Django's PostgreSQL backend with a health check that costs no round trip while the connection is idle.

Django checks a kept connection before a request's first query (``CONN_HEALTH_CHECKS``)
by sending ``SELECT 1``: on a read of one statement, that is a second round trip,
about a tenth of the worker's CPU for the request. A server that ends a connection
(a restart, ``pg_terminate_backend``, an idle timeout, a pooler closing it) first
sends an error and closes the socket, so an idle connection whose socket has
nothing to read has not been ended; when there is something to read, Django's own
``SELECT 1`` decides. A connection the network lost without a word is caught by
neither check until its query times out, as before.
"""

import select

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self):
        connection = self.connection
        if connection is None or connection.closed:
            return False
        poller = select.poll()
        poller.register(connection.fileno(), select.POLLIN)
        if not poller.poll(0):
            return True
        return super().is_usable()
