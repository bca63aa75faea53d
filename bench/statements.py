"""SQL statements per request, counted on the wire: ``python -m bench.statements LINES COUNT``.

Replays the first COUNT request lines of LINES (bench/requests.lua's format) through
Django's own WSGI handler in this process, under whatever DJANGO_SETTINGS_MODULE says
(the service's or the stock peer's), and counts what the database connection sends:
libpq's protocol trace shows every simple Query and every extended-protocol Execute,
so BEGIN, COMMIT and Django's connection health check (``SELECT 1``) count too. The
count through Django's cursor (``CaptureQueriesContext``) is reported beside it.

The first line is replayed uncounted: it opens the connection. Prints one JSON object.
"""

import io
import json
import os
import re
import statistics
import sys
import tempfile

import django

django.setup()

from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from psycopg import pq  # noqa: E402

QUERY = re.compile(r'^F\t\d+\tQuery\t "(.*)"$')
PARSE = re.compile(r'^F\t\d+\tParse\t "([^"]*)" "(.*)" \d+')
BIND = re.compile(r'^F\t\d+\tBind\t "[^"]*" "([^"]*)"')
EXECUTE = re.compile(r"^F\t\d+\tExecute\t")


def environ(line: str) -> dict:
    method, path, headers, body = line.rstrip("\n").split("\t")
    data = body.encode()
    path, _, query = path.partition("?")
    env = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": os.environ.get("BENCH_PORT", "8101"),
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": f"127.0.0.1:{os.environ.get('BENCH_PORT', '8101')}",
        "wsgi.input": io.BytesIO(data),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "CONTENT_LENGTH": str(len(data)),
    }
    for header in filter(None, headers.split("|")):
        name, value = header.split(": ", 1)
        key = name.upper().replace("-", "_")
        env[key if key == "CONTENT_TYPE" else f"HTTP_{key}"] = value
    return env


def statements(trace: str) -> list[str]:
    """The statements a protocol trace shows the client sending, in order."""
    # A statement psycopg has prepared is parsed once under its name, then only bound by that name.
    sent, named, bound = [], {}, ""
    for line in trace.splitlines():
        if match := QUERY.match(line):
            sent.append(match.group(1))
        elif match := PARSE.match(line):
            named[match.group(1)] = match.group(2)
        elif match := BIND.match(line):
            bound = named.get(match.group(1), "")
        elif EXECUTE.match(line):
            sent.append(bound)
    return sent


def replay(handler, line: str) -> tuple[int, list[str], int]:
    """Status, statements on the wire, statements through Django's cursor."""
    status = []

    def start_response(value, headers, exc_info=None):
        status.append(int(value.split()[0]))

    connection.ensure_connection()
    pgconn = connection.connection.pgconn
    with tempfile.TemporaryFile("w+") as out, CaptureQueriesContext(connection) as captured:
        pgconn.trace(out.fileno())
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        try:
            response = handler(environ(line), start_response)
            for _ in response:
                pass
            response.close()
        finally:
            if connection.connection is not None and connection.connection.pgconn is pgconn:
                pgconn.untrace()
        out.seek(0)
        sent = statements(out.read())
    return status[0], sent, len(captured)


def main() -> int:
    path, count = sys.argv[1], int(sys.argv[2])
    lines = open(path).read().splitlines()[: count + 1]  # noqa: SIM115
    handler = WSGIHandler()
    replay(handler, lines[0])
    results = [replay(handler, line) for line in lines[1:]]
    wire = [len(sent) for _, sent, _ in results]
    median = statistics.median_low(wire)
    sample = next(sent for _, sent, _ in results if len(sent) == median)
    print(
        json.dumps(
            {
                "statuses": sorted({status for status, _, _ in results}),
                "wire": wire,
                "django": [through for _, _, through in results],
                "median_wire": median,
                "median_django": statistics.median_low([through for _, _, through in results]),
                "sample": [text[:160] for text in sample],
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
