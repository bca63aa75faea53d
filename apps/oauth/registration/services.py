"""Writes of clients: dynamic registration, disabling, partner marking, purging."""

import json
import logging
import math
from datetime import datetime

from django.db import connection, transaction
from django.utils import timezone
from oauth2_provider.models import get_application_model

from apps.core.ids import new_id

from .metadata import ClientMetadata
from .selectors import (
    client_count_unexpired_self_registered,
    client_count_unused_self_registered,
    client_list_purgeable,
)

log = logging.getLogger(__name__)

# docs/spec.md 8.2: global cap of unexpired self-registered clients.
REGISTRATION_CAP = 5000
# Operators are warned as unused registrations pass each of these shares of the cap.
CAP_WARNING_PERCENTS = (80, 85, 90, 95, 100)
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
        unexpired = client_count_unexpired_self_registered(now=now)
        if unexpired >= REGISTRATION_CAP:
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
    registration_cap_watch(now=now, unexpired=unexpired + 1)
    return client


def registration_cap_watch(*, now: datetime, unexpired: int) -> None:
    """Warn operators as registrations nobody uses fill the cap (80 %, then every 5 %).

    The cap closes registration for everyone for as long as 30 days, and the
    per-address budgets slow a wide network down without stopping it, so a
    cap filling with unused clients is an attack to look at (purge, or block
    the network), not only a number. Registrations are serialised and each adds
    one unused client, so the count meets every step on its way up: one line
    per step, none per registration. Costs a count only near the cap.
    """
    steps = {math.ceil(REGISTRATION_CAP * percent / 100): percent for percent in CAP_WARNING_PERCENTS}
    if unexpired < min(steps):
        return  # the unused ones are a part of the unexpired ones
    unused = client_count_unused_self_registered(now=now)
    if unused in steps:
        log.warning(
            json.dumps(
                {
                    "event": "oauth.registration_cap_filling",
                    "unused": unused,
                    "unexpired": unexpired,
                    "cap": REGISTRATION_CAP,
                    "percent": steps[unused],
                }
            )
        )


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
