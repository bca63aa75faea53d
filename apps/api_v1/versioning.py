from django.conf import settings
from django.utils import timezone
from rest_framework.versioning import BaseVersioning

from apps.core.errors import ApiError
from apps.core.request_context import notes

from . import versions

HEADER = "HTTP_SERVICE_VERSION"


def requested_version(request) -> str | None:
    """The header's version, validated; None when the header is absent."""
    value = request.META.get(HEADER)
    if value is None:
        return None
    if versions.get_version(value) is None:
        known = ", ".join(versions.known_versions())
        raise ApiError(
            "invalid_version",
            f"Unknown Service-Version {value[:40]!r}. Known versions: {known}.",
            param="Service-Version",
        )
    return value


class ServiceVersioning(BaseVersioning):
    """Header, else the credential's pinned version, else the current one."""

    def determine_version(self, request, *args, **kwargs):
        return version_for(request._request, lambda: request.auth)


def version_for(request, principal_of) -> str:
    """The version a request is served in (kept on it for ApiV1Middleware's headers).

    ``principal_of`` gives the caller's principal; it is only asked when no
    header names a version (DRF authenticates lazily).
    """
    name = requested_version(request)
    if name is None:
        principal = principal_of()
        pinned = getattr(principal, "api_version", None) if principal is not None else None
        name = pinned if versions.get_version(pinned or "") else versions.CURRENT_VERSION
    version = versions.get_version(name)
    notes(request).api_version = name
    if version.is_sunset(timezone.now().date()):
        raise ApiError(
            "version_sunset",
            f"API version {name} was retired on {version.sunset_on.isoformat()}. "
            f"Migrate as described in {settings.DOCS_URL}/versions#migrating.",
        )
    return name
