"""Reads about registered clients."""

from datetime import datetime, timedelta

from django.db.models import Exists, OuterRef, Q, QuerySet
from oauth2_provider.models import get_access_token_model, get_application_model, get_refresh_token_model

# docs/spec.md 4.3 / 8.5: registrations never used are purged after 30 days.
UNUSED_REGISTRATION_LIFETIME = timedelta(days=30)


def _self_registered() -> QuerySet:
    Application = get_application_model()
    return Application.objects.filter(registration_source=Application.RegistrationSource.DCR)


def client_never_used_filter() -> Q:
    """Never used: no token request ever stamped it, and no token row points at it.

    The token check keeps a client whose tokens exist (but whose stamp was never
    written) out of the purge, which would otherwise cascade-delete live tokens.
    """
    AccessToken = get_access_token_model()
    RefreshToken = get_refresh_token_model()
    return (
        Q(last_used_at__isnull=True)
        & ~Q(Exists(AccessToken.objects.filter(application=OuterRef("pk"))))
        & ~Q(Exists(RefreshToken.objects.filter(application=OuterRef("pk"))))
    )


def client_list_purgeable(*, now: datetime) -> QuerySet:
    """Self-registered clients registered more than 30 days ago and never used."""
    return _self_registered().filter(client_never_used_filter(), created__lt=now - UNUSED_REGISTRATION_LIFETIME)


def client_count_unexpired_self_registered(*, now: datetime) -> int:
    """Self-registered clients the purge would keep: used ever, or registered within 30 days.

    Counted against the global cap (docs/spec.md 8.2). ``last_used_at`` alone decides "used"
    here, so the count stays one cheap query on the hot path of registration.
    """
    return (
        _self_registered()
        .filter(Q(last_used_at__isnull=False) | Q(created__gte=now - UNUSED_REGISTRATION_LIFETIME))
        .count()
    )


def client_count_unused_self_registered(*, now: datetime) -> int:
    """Self-registered clients never used and registered within 30 days: what the purge will take.

    The part of the cap that filling it by registering and never using costs
    nothing; watched so operators hear of it before registration closes.
    """
    return _self_registered().filter(last_used_at__isnull=True, created__gte=now - UNUSED_REGISTRATION_LIFETIME).count()
