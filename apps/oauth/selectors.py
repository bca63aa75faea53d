"""Reads for the OAuth core: client lookup, redirect URI matching, transactions, tokens."""

from django.conf import settings
from django.db.models import OuterRef, Subquery

from apps.core.ids import digest, looks_like
from apps.ratelimit.public import LimiterUnavailable

from .models import AccessToken, Application, ConsentTransaction, GrantFamily
from .redirects import redirect_uri_matches


def permitted_resources() -> tuple[str, str]:
    return (f"{settings.BASE_URL}/v1", f"{settings.BASE_URL}/mcp")


def issuer() -> str:
    return settings.BASE_URL


def _resolve_metadata_document(client_id: str, request) -> Application | None:
    from apps.oauth.client_metadata import client_get_by_metadata_url

    try:
        return client_get_by_metadata_url(client_id, request)
    except LimiterUnavailable:
        raise  # the fetch budgets cannot be read: 503 temporarily_unavailable, as every limiter outage
    except Exception:  # an unfetchable or invalid document is an unknown client
        return None


def client_get_for_authorize(client_id: str | None, request) -> Application | None:
    """The client an authorization request names, or None (unknown, invalid, disabled)."""
    # Client ids are printable; a NUL would not even reach PostgreSQL as a query parameter.
    if not client_id or len(client_id) > 255 or not client_id.isprintable():
        return None
    if client_id.startswith("https://"):
        application = _resolve_metadata_document(client_id, request)
    else:
        application = Application.objects.filter(client_id=client_id).first()
    if application is None or not application.is_usable(request):
        return None
    return application


def redirect_uri_allowed(application: Application, uri: str | None) -> bool:
    """Exact match against a registered URI; loopback URIs match on any real port (docs/spec.md 5.4)."""
    return redirect_uri_matches(uri, application.redirect_uris.split())


def transaction_get(*, transaction_id: str) -> ConsentTransaction | None:
    if not looks_like(transaction_id or "", "otx_", 24):
        return None
    return ConsentTransaction.objects.select_related("application").filter(pk=transaction_id).first()


def access_token_get_by_secret(secret: str) -> AccessToken | None:
    """One indexed query by digest, user and client joined, with the API version its consent is pinned to
    (``family_api_version``: blank for a family consented before versions were recorded)."""
    pinned = GrantFamily.objects.filter(family=OuterRef("family")).values("api_version")[:1]
    return (
        AccessToken.objects.select_related("user", "application")
        .annotate(family_api_version=Subquery(pinned))
        .filter(token_checksum=digest(secret))
        .first()
    )
