"""DRF hook: authenticated /v1 views count against their budget class after authentication.

A view names its class with ``ratelimit_class`` (a key of budgets.CLASSES, or
None for none); otherwise /v1/api-keys is key management and authenticated
GET/HEAD are reads. Denials raise ApiErrors, which DRF's exception handler
renders as the envelope.
"""

from rest_framework.throttling import BaseThrottle

from apps.api_v1.principal import Principal

from . import budgets as table
from . import services

UNSET = object()
READ_METHODS = frozenset({"GET", "HEAD"})


def view_class(request, view, *, bearer: bool | None = None) -> str | None:
    """The budget class of a request to ``view``; ``bearer`` says whether a bearer principal calls it
    (by default, whether one has authenticated)."""
    name = getattr(view, "ratelimit_class", UNSET)
    if name is not UNSET:
        return name
    for prefix, cls in table.VIEW_PATH_CLASSES:
        if request.path == prefix or request.path.startswith(prefix + "/"):
            return cls
    if bearer is None:
        bearer = isinstance(request.auth, Principal)
    if bearer and request.method in READ_METHODS:
        return table.READS
    return None


class BudgetThrottle(BaseThrottle):
    def allow_request(self, request, view):
        name = view_class(request, view)
        if name is None or getattr(request._request, "ratelimit_charged", None) == name:
            return True  # none, or already applied with the bearer lookup (apps.api_v1.credentials)
        principal = request.auth if isinstance(request.auth, Principal) else None
        user = request.user if getattr(request.user, "is_authenticated", False) else None
        if principal is None and user is None:
            return True  # anonymous: the permission check answers, and path budgets already applied
        services.ratelimit_class(request=request._request, name=name, principal=principal, user=user)
        return True
