"""Each request counted for ``/metrics`` and written as one log line; log records told what they belong to.

``RequestObservationMiddleware`` sits just inside ``RequestIdMiddleware``: it times the
whole request (every other middleware included), counts it by route template and status
(apps/core/metrics.py, when metrics are on) and, with ``LOG_FORMAT=json``, writes one
``service.request`` line: request id, route template, method, status, duration, and the
principal's kind and id. Never the path asked (it can hold ids the route names), a query
string, a header, a body or a code: what identifies a caller is the credential's public
id (``key_...``, a client id) and the user's id.

``ContextFilter`` (settings.LOGGING) adds to every record the request id of the request
being served, or, in a worker, the job's kind, row id and lane (``job_context``).
"""

import contextlib
import contextvars
import logging
import time

from django.conf import settings
from django.utils.functional import empty

from . import metrics
from .request_context import current_request, notes

request_log = logging.getLogger("service.request")

_job: contextvars.ContextVar[dict | None] = contextvars.ContextVar("observed_job", default=None)


class RequestObservationMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        counting, logging_json = metrics.enabled(), getattr(settings, "LOG_FORMAT", "text") == "json"
        if counting or logging_json:
            seconds = time.perf_counter() - started
            if counting:
                metrics.observe_request(request, response.status_code, seconds)
            if logging_json:
                request_log.info("request", extra=request_fields(request, response.status_code, seconds))
        return response


def request_fields(request, status: int, seconds: float) -> dict:
    noted = notes(request)
    kind, principal_id, user_id = noted.principal_kind, noted.principal_id, noted.principal_user_id
    if not kind:
        # Set only where the session middleware ran, and read only if the request already looked
        # (a lazy user asked here would cost a session read the request never made).
        user = getattr(request, "user", None)
        if user is not None and getattr(user, "_wrapped", None) is not empty and user.is_authenticated:
            kind, user_id = "session", str(user.pk)
    return {
        "route": metrics.route_of(request),
        "method": request.method if request.method in metrics.KNOWN_METHODS else "other",
        "status": status,
        "duration_ms": round(seconds * 1000, 3),
        "principal_kind": kind or "anonymous",
        "principal_id": principal_id,
        "user_id": user_id,
    }


@contextlib.contextmanager
def job_context(*, kind: str, row_id, lane: str):
    token = _job.set({"job_kind": kind, "job_id": row_id, "lane": lane})
    try:
        yield
    finally:
        _job.reset(token)


class ContextFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        request = current_request.get()
        if request is not None and not hasattr(record, "request_id"):
            record.request_id = notes(request).request_id
        job = _job.get()
        if job is not None:
            for name, value in job.items():
                if not hasattr(record, name):
                    setattr(record, name, value)
        return True
