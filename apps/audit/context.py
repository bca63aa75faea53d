"""The request being served, for audit rows written deep inside services.

Services keep their keyword-only signatures without a ``request`` argument;
the source address and request id of the row come from here instead. Outside
a request (management commands, tests calling services directly) there is
none, and the row simply has no address or request id.
"""

import contextvars

current_request: contextvars.ContextVar = contextvars.ContextVar("audit_request", default=None)


class AuditContextMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        token = current_request.set(request)
        try:
            return self.get_response(request)
        finally:
            current_request.reset(token)
