"""What one request carries between layers: one typed notes object and one ContextVar.

Middleware, the limiter, versioning and audit each learn something about the
request being served; they write it here instead of onto ad-hoc request
attributes, so every piece of per-request state has one declared home. The
ContextVar holds the request itself for code that runs deep inside services
(audit rows, the token endpoint's budgets) without a ``request`` argument;
outside a request (management commands, tests calling services) it is None.
"""

import contextvars
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest


@dataclass
class RequestNotes:
    request_id: str = ""
    # The API version that serves a /v1 request (apps.api_v1.versioning).
    api_version: str | None = None
    # The limiter's decision whose headers the response carries (apps.ratelimit).
    ratelimit_decision: Any = None
    # The budget class already applied with the bearer lookup, so DRF's throttle skips it.
    ratelimit_charged: str | None = None
    # The token endpoint's validator found a code or token the user revoked: no failed exchange.
    oauth_credential_revoked_by_user: bool = False
    # Who called, for the request's log line (apps/core/observe.py): the credential's kind and
    # public id and its user's id, noted by the bearer lookup. Never a secret.
    principal_kind: str = ""
    principal_id: str = ""
    principal_user_id: str = ""


current_request: contextvars.ContextVar[HttpRequest | None] = contextvars.ContextVar("current_request", default=None)


def notes(request) -> RequestNotes:
    """The notes of a Django request (or of the Django request under a DRF one)."""
    request = getattr(request, "_request", request)
    try:
        return request._notes
    except AttributeError:
        request._notes = found = RequestNotes()
        return found
