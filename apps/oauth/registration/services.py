"""Writes of clients: dynamic registration, disabling, partner marking, purging."""

from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone
from oauth2_provider.models import get_application_model

from apps.core.ids import new_id

from .metadata import ClientMetadata
from .selectors import client_count_unexpired_self_registered, client_list_purgeable

# docs/spec.md 8.2: global cap of unexpired self-registered clients.
REGISTRATION_CAP = 5000
REGISTRATION_CLOSED_RETRY_AFTER = 3600
CLIENT_ID_PREFIX = "dcr_"
# Any constant identifies "the registration cap" among PostgreSQL advisory locks.
_REGISTRATION_LOCK_KEY = 0x6463725F  # "dcr_"


class RegistrationClosed(Exception):
    """The global cap is reached; answered 503 temporarily_unavailable, Retry-After: 3600."""


def _serialize_registrations() -> None:
    # Without it, concurrent registrations at the cap could all see room and overshoot
    # it. SQLite serializes writers on its own; registration is rare enough (per-IP
    # budgets of 30/min and 20/hour) that a transaction-scoped lock costs nothing.
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_REGISTRATION_LOCK_KEY])


def client_register(*, metadata: ClientMetadata, now: datetime | None = None):
    """Create a public, self-registered client with a ``dcr_`` id (docs/spec.md 2.5)."""
    Application = get_application_model()
    now = now or timezone.now()
    with transaction.atomic():
        _serialize_registrations()
        if client_count_unexpired_self_registered(now=now) >= REGISTRATION_CAP:
            raise RegistrationClosed
        client = Application(
            client_id=new_id(CLIENT_ID_PREFIX),
            user=None,
            name=metadata.client_name or "",
            redirect_uris=" ".join(metadata.redirect_uris),
            client_type=Application.CLIENT_PUBLIC,
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
            registration_source=Application.RegistrationSource.DCR,
            application_type=metadata.application_type,
            client_uri=metadata.client_uri or "",
            # Public clients have no secret: store none, and skip DOT's password hashing
            # of the default one (a deliberate slow hash per anonymous request).
            client_secret="",
            hash_client_secret=False,
        )
        client.save()
    return client


def client_disable(*, client, now: datetime | None = None) -> None:
    """Disable a client: authorize refuses it, transactions read client_disabled, tokens stop working."""
    if client.disabled_at is None:
        client.disabled_at = now or timezone.now()
        client.save(update_fields=["disabled_at", "updated"])


def client_enable(*, client) -> None:
    if client.disabled_at is not None:
        client.disabled_at = None
        client.save(update_fields=["disabled_at", "updated"])


def client_set_verified_partner(*, client, verified: bool) -> None:
    if client.verified_partner != verified:
        client.verified_partner = verified
        client.save(update_fields=["verified_partner", "updated"])


def client_purge_unused(*, now: datetime | None = None, dry_run: bool = False, batch_size: int = 500) -> int:
    """Delete self-registered clients never used within 30 days of registering; return how many."""
    now = now or timezone.now()
    if dry_run:
        return client_list_purgeable(now=now).count()
    Application = get_application_model()
    ids = list(client_list_purgeable(now=now).values_list("pk", flat=True))
    deleted = 0
    for start in range(0, len(ids), batch_size):
        # The rule is re-applied inside each delete, so a client used since the listing survives.
        batch = client_list_purgeable(now=now).filter(pk__in=ids[start : start + batch_size])
        deleted += batch.delete()[1].get(Application._meta.label, 0)
    return deleted
