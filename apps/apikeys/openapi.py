"""OpenAPI description of the dashboard session that the key endpoints accept."""

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension


class DashboardSessionScheme(OpenApiAuthenticationExtension):
    target_class = "apps.apikeys.authentication.DashboardSessionAuthentication"
    name = "dashboardSession"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "cookie",
            "name": settings.SESSION_COOKIE_NAME,
            "description": (
                "The signed-in dashboard session (sign in at the web application). Writes also need the "
                "X-CSRFToken header. API keys and OAuth tokens are not accepted here."
            ),
        }
