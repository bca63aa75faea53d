"""Discovery documents: RFC 8414 authorization-server metadata, the two RFC 9728
protected-resource documents of docs/spec.md 2.8, and RFC 9116 security.txt.

Every address is built from ``BASE_URL``, never from the request's Host header:
the issuer must be exactly ``{base_url}`` (clients compare it to the ``iss`` they
receive, RFC 9207) and a spoofed Host must not be able to move an endpoint.
"""

from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.urls import path
from django.utils import timezone
from django.views import View
from oauth2_provider.models import AbstractGrant
from oauth2_provider.settings import oauth2_settings
from oauth2_provider.views.metadata import (
    OAuthProtectedResourceMetadataView,
    bcp_filter_code_challenge_methods,
    bcp_filter_response_types,
)

from apps.credentials.scopes import ALL_SCOPES

# Metadata changes only with a deployment; clients are told to cache it (docs/spec.md 8.5).
METADATA_CACHE_CONTROL = "public, max-age=3600"
# RFC 9116 2.5.5: Expires should be less than a year ahead; the file is generated, so it never goes stale.
SECURITY_TXT_LIFETIME = timedelta(days=180)


def _cacheable(response):
    response["Cache-Control"] = METADATA_CACHE_CONTROL
    return response


def authorization_server_metadata() -> dict:
    base = settings.BASE_URL
    return {
        "issuer": base,
        "authorization_endpoint": f"{base}/oauth/authorize",
        "token_endpoint": f"{base}/oauth/token",
        "revocation_endpoint": f"{base}/oauth/revoke",
        "registration_endpoint": f"{base}/oauth/register",
        "scopes_supported": list(ALL_SCOPES),
        "response_types_supported": bcp_filter_response_types(oauth2_settings.OAUTH2_RESPONSE_TYPES_SUPPORTED),
        "response_modes_supported": ["query"],
        "grant_types_supported": list(oauth2_settings.OAUTH2_GRANT_TYPES_SUPPORTED),
        "code_challenge_methods_supported": bcp_filter_code_challenge_methods(
            [method for method, _ in AbstractGrant.CODE_CHALLENGE_METHODS]
        ),
        "token_endpoint_auth_methods_supported": list(oauth2_settings.OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED),
        "revocation_endpoint_auth_methods_supported": list(
            oauth2_settings.OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED
        ),
        "client_id_metadata_document_supported": bool(oauth2_settings.CIMD_ENABLED),
        "authorization_response_iss_parameter_supported": True,
        "service_documentation": f"{settings.DOCS_URL}/oauth",
    }


class AuthorizationServerMetadataView(View):
    """RFC 8414. DOT's view derives the issuer and endpoints from the request and its
    own URL names; ours are fixed by docs/spec.md, so only DOT's settings and filters are reused."""

    http_method_names = ["get", "head", "options"]

    def get(self, request):
        return _cacheable(JsonResponse(authorization_server_metadata()))


class ProtectedResourceMetadataView(OAuthProtectedResourceMetadataView):
    """RFC 9728 document of one protected resource (docs/spec.md 2.8), through DOT's ``get_*`` hooks."""

    http_method_names = ["get", "head", "options"]
    resource_path = ""
    resource_name = ""

    def get_resource(self, request):
        return f"{settings.BASE_URL}/{self.resource_path}"

    def get_authorization_servers(self, request):
        return [settings.BASE_URL]

    def get_scopes_supported(self):
        return list(ALL_SCOPES)

    def get_bearer_methods_supported(self):
        return ["header"]

    def get_resource_name(self):
        return self.resource_name

    def get_resource_documentation(self):
        # docs/spec.md 2.8: the MCP reference, for both documents.
        return f"{settings.DOCS_URL}/mcp"

    def get_resource_policy_uri(self):
        return ""

    def get_resource_tos_uri(self):
        return ""

    def get(self, request, *args, **kwargs):
        return _cacheable(super().get(request, *args, **kwargs))


def security_txt(now=None) -> str:
    now = now or timezone.now()
    expires = (now + SECURITY_TXT_LIFETIME).replace(hour=0, minute=0, second=0, microsecond=0)
    contact = getattr(settings, "SECURITY_CONTACT", "") or f"mailto:security@{urlsplit(settings.BASE_URL).hostname}"
    lines = [
        f"Contact: {contact}",
        f"Expires: {expires.strftime('%Y-%m-%dT%H:%M:%SZ')}",
        "Preferred-Languages: en",
        f"Canonical: {settings.BASE_URL}/.well-known/security.txt",
        f"Policy: {settings.DOCS_URL}/security",
    ]
    return "\n".join(lines) + "\n"


class SecurityTxtView(View):
    http_method_names = ["get", "head", "options"]

    def get(self, request):
        response = HttpResponse(security_txt(), content_type="text/plain; charset=utf-8")
        response["Cache-Control"] = "public, max-age=86400"
        return response


urlpatterns = [
    path(
        ".well-known/oauth-authorization-server",
        AuthorizationServerMetadataView.as_view(),
        name="oauth-authorization-server-metadata",
    ),
    path(
        ".well-known/oauth-protected-resource/v1",
        ProtectedResourceMetadataView.as_view(resource_path="v1", resource_name="Service REST API"),
        name="oauth-protected-resource-v1",
    ),
    path(
        ".well-known/oauth-protected-resource/mcp",
        ProtectedResourceMetadataView.as_view(resource_path="mcp", resource_name="Service MCP server"),
        name="oauth-protected-resource-mcp",
    ),
    path(".well-known/security.txt", SecurityTxtView.as_view(), name="security-txt"),
]
