"""The signed-in dashboard session as a caller, for the JSON endpoints the web application calls.

Only the Django session counts here: an ``Authorization: Bearer`` header is
ignored, so an API key or OAuth token can never manage keys, decide a consent or
disconnect an app (docs/spec.md 4.4, 4.5, 5.1). Failures answer in the envelope:
no session is 401 ``invalid_token`` with a message asking to sign in, a failed
CSRF check is 403 ``forbidden``.
"""

from django.conf import settings
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import IsAuthenticated

from apps.core.errors import ApiError

from .challenges import invalid_token, www_authenticate

# The session endpoints live beside the REST API; a 401 names its metadata.
DASHBOARD_RESOURCE = "v1"


def sign_in_message() -> str:
    return f"Sign in to your account at {settings.APP_URL}/login to continue."


class DashboardSessionAuthentication(SessionAuthentication):
    """DRF's session check with CSRF enforced; failures answer in the envelope."""

    def enforce_csrf(self, request):
        try:
            super().enforce_csrf(request)
        except exceptions.PermissionDenied:
            raise ApiError(
                "forbidden",
                "The CSRF check failed. Reload the page and try again (send the X-CSRFToken header).",
            ) from None

    def authenticate_header(self, request):
        return www_authenticate(DASHBOARD_RESOURCE)


class SessionOnlyMixin:
    """For DRF views that only a signed-in dashboard session may call."""

    authentication_classes = [DashboardSessionAuthentication]
    permission_classes = [IsAuthenticated]

    def permission_denied(self, request, message=None, code=None):
        if request.user is None:
            raise invalid_token(DASHBOARD_RESOURCE, sign_in_message())
        super().permission_denied(request, message=message, code=code)
