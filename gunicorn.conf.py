"""gunicorn settings, read from the working directory by `gunicorn config.wsgi` (Procfile, bench).

Each worker imports the URLconf (and with it every view) before serving, then
freezes what is allocated so far: the long-lived objects of Django, DRF, DOT and
the MCP SDK leave the garbage collector's generations, so a full collection no
longer walks them in the middle of a request (the latency tail, issue 9).
"""

import gc


def post_worker_init(worker):
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018  imports every view now, not on the first request
    gc.collect()
    gc.freeze()
