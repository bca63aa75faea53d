"""DRF hook: authenticated /v1 views count against their budget class after authentication.

A view names its class with ``ratelimit_class`` (a key of
``apps.ratelimit.budgets.CLASSES``, or None for none); otherwise authenticated
GET, HEAD and OPTIONS (which reads the view's metadata) are reads. Denials
raise the limiter's exceptions, which DRF's exception handler renders as the
envelope. The limiter itself knows nothing of DRF or of credentials: this
adapter is the /v1 framework's.
"""

from rest_framework.throttling import BaseThrottle

from apps.core.request_context import notes
from apps.credentials.principal import Principal
from apps.ratelimit.public import budgets, ratelimit_class

UNSET = object()
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def view_class(request, view, *, bearer: bool | None = None) -> str | None:
    """The budget class of a request to ``view``; ``bearer`` says whether a bearer principal calls it
    (by default, whether one has authenticated)."""
    name = getattr(view, "ratelimit_class", UNSET)
    if name is not UNSET:
        return name
    if bearer is None:
        bearer = isinstance(request.auth, Principal)
    if bearer and request.method in READ_METHODS:
        return budgets.READS
    return None


class BudgetThrottle(BaseThrottle):
    def allow_request(self, request, view):
        name = view_class(request, view)
        if name is None or notes(request).ratelimit_charged == name:
            return True  # none, or already applied with the bearer lookup (apps.credentials.resolvers)
        principal = request.auth if isinstance(request.auth, Principal) else None
        user = request.user if getattr(request.user, "is_authenticated", False) else None
        if principal is None and user is None:
            return True  # anonymous: the permission check answers, and path budgets already applied
        ratelimit_class(request=request._request, name=name, principal=principal, user=user)
        return True
