from rest_framework.authentication import BaseAuthentication

from apps.credentials.challenges import invalid_token, www_authenticate
from apps.credentials.header import bearer_from_header, malformed_header_message
from apps.credentials.resolvers import resolve_bearer

from .throttling import view_class

RESOURCE_PATH = "v1"


class BearerAuthentication(BaseAuthentication):
    """``Authorization: Bearer`` with an API key or an OAuth access token bound to /v1.

    Returns None when no Authorization header is sent (DRF then answers
    NotAuthenticated, rendered as ``invalid_token``), and raises when a
    credential is sent but is not usable.
    """

    def authenticate(self, request):
        secret = bearer_from_header(request)
        if secret is None:
            return None
        if not secret:
            raise invalid_token(RESOURCE_PATH, malformed_header_message(request))
        view = (getattr(request, "parser_context", None) or {}).get("view")
        # The view's budgets ride on the credential lookup: one store round trip.
        budget_class = view_class(request, view, bearer=True) if view is not None else None
        principal = resolve_bearer(request._request, secret, resource_path=RESOURCE_PATH, budget_class=budget_class)
        return principal.user, principal

    def authenticate_header(self, request):
        return www_authenticate(RESOURCE_PATH)
