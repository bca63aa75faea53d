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
    gc.collect()
    gc.freeze()
