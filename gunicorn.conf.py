"""gunicorn settings, read from the working directory by `gunicorn config.wsgi` (Procfile, bench).

Workers: ``WEB_CONCURRENCY`` when set, else gunicorn's own advice for sync workers,
(2 x cores) + 1. A sync worker waits on Redis for part of every request and on
PostgreSQL for part of many; with a worker per core those waits leave the core idle,
with more the others use it (docs/performance.md). Each worker holds about
120 MB: set ``WEB_CONCURRENCY`` where the core count seen is not the core count granted.

Each worker imports the URLconf (and with it every view) before serving, then
freezes what is allocated so far: the long-lived objects of Django, DRF, DOT and
the MCP SDK leave the garbage collector's generations, so a full collection no
longer walks them in the middle of a request (the latency tail).
"""

import gc
import os


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))  # the cores this process may run on (Linux)
    except AttributeError:
        return os.cpu_count() or 1


workers = int(os.environ.get("WEB_CONCURRENCY") or 2 * _cores() + 1)


def post_worker_init(worker):
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018  imports every view now, not on the first request
    _install_json_refusals()
    gc.collect()
    gc.freeze()


# --- Request limits: raised so that Django answers what it can -------------------------
# gunicorn refuses a request line longer than this before Django sees it (414); 8190 is the
# most it allows short of no bound at all. A path shorter than that reaches Django, which
# answers it in the contract's shape (an unknown route is a JSON 404 with its Request-Id).
limit_request_line = 8190
limit_request_fields = 200
limit_request_field_size = 16380


# --- Metrics: one set of files for all workers (prometheus-client's multiprocess mode) --
# With METRICS_TOKEN set, each worker writes its counts under PROMETHEUS_MULTIPROC_DIR
# (a fresh temporary directory when unset) and a scrape of any worker sums them all. The
# variable must be in the environment before a worker imports prometheus_client, so it is
# set here, in the master, before any worker is forked.
def _metrics_directory() -> str | None:
    if not os.environ.get("METRICS_TOKEN"):
        return None
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not path:
        import tempfile

        path = os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="prometheus-")
    os.makedirs(path, exist_ok=True)
    return path


METRICS_DIRECTORY = _metrics_directory()


def on_starting(server):
    # Counts of a previous run's workers would be summed with this run's: start from none.
    if METRICS_DIRECTORY:
        for name in os.listdir(METRICS_DIRECTORY):
            if name.endswith(".db"):
                os.remove(os.path.join(METRICS_DIRECTORY, name))


def child_exit(server, worker):
    # A worker's gauges go with it; its counters stay in the sums (prometheus-client's rule).
    if METRICS_DIRECTORY:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid, METRICS_DIRECTORY)


# --- gunicorn's own refusals in the contract's shape -----------------------------------
# A request gunicorn cannot parse (a request line past the limit above, a bad byte in a
# header name) never reaches Django. gunicorn writes its answer with gunicorn.util.write_error,
# an HTML page without a Request-Id and with no setting to change it; each worker replaces that
# one function (gunicorn is pinned, tests/test_gunicorn_refusals.py holds it to a real server)
# with one writing the error envelope and a Request-Id, the status gunicorn chose kept.
def _install_json_refusals():
    import json

    from gunicorn import util

    def write_error(sock, status_int, reason, mesg):
        from django.conf import settings

        from apps.core.ids import new_id

        request_id = new_id("req_")
        code = "internal_error" if status_int >= 500 and status_int != 501 else "invalid_request"
        kind = "api_error" if code == "internal_error" else "invalid_request_error"
        message = (
            "Something went wrong on our side. Please retry."
            if code == "internal_error"
            else f"The request could not be read: {reason}."
        )
        body = json.dumps(
            {
                "error": {
                    "type": kind,
                    "code": code,
                    "message": message,
                    "param": None,
                    "doc_url": f"{settings.DOCS_URL}/errors#{code}",
                    "request_id": request_id,
                }
            }
        ).encode()
        head = (
            f"HTTP/1.1 {status_int} {reason}\r\n"
            "Connection: close\r\n"
            "Content-Type: application/json\r\n"
            "Cache-Control: no-store\r\n"
            f"Request-Id: {request_id}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode("latin-1")
        util.write_nonblock(sock, head + body)

    util.write_error = write_error
