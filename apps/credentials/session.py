"""Dashboard-session authentication for the session-only endpoints (docs/spec.md 4.4, 5.1).

Only the signed-in Django session counts: an ``Authorization: Bearer`` header
is ignored here, so an API key or OAuth token can never manage API keys.
"""

from django.conf import settings
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import IsAuthenticated

from apps.core.errors import ApiError
from apps.credentials.challenges import invalid_token, www_authenticate

from .authentication import RESOURCE_PATH


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
        return www_authenticate(RESOURCE_PATH)


class SessionOnlyMixin:
    """For views that only a signed-in dashboard session may call."""

    authentication_classes = [DashboardSessionAuthentication]
    permission_classes = [IsAuthenticated]

    def permission_denied(self, request, message=None, code=None):
        if request.user is None:
            raise invalid_token(RESOURCE_PATH, sign_in_message())
        super().permission_denied(request, message=message, code=code)
