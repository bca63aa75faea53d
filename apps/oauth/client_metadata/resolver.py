"""The client an https ``client_id`` names: the stored row while fresh, else a bounded fetch."""

import logging
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone
from oauth2_provider.cimd import CIMDError, is_cimd_client_id
from oauth2_provider.models import get_application_model
from oauth2_provider.settings import oauth2_settings

from apps.ratelimit.public import (
    RateLimited,
    budgets,
    ratelimit_document_fetch,
    ratelimit_document_fetch_failed,
    ratelimit_in_flight,
)

from ..dot_private import registration_permitted, validate_client_id_url
from .document import client_metadata_document_validate
from .fetcher import MAX_CLIENT_ID_LENGTH

log = logging.getLogger(__name__)

# A slot outlives its fetch's deadline by this much before it frees itself (a killed worker).
SLOT_GRACE_SECONDS = 5


def _fetch_validated(client_id: str):
    fetcher = oauth2_settings.CIMD_METADATA_FETCHER()
    data, max_age = fetcher.fetch(client_id)
    return client_metadata_document_validate(client_id=client_id, data=data), max_age


def _client_fields(metadata, max_age: int, now) -> dict:
    Application = get_application_model()
    return {
        "name": metadata.client_name or "",
        "redirect_uris": " ".join(metadata.redirect_uris),
        "application_type": metadata.application_type,
        "client_uri": metadata.client_uri or "",
        "client_type": Application.CLIENT_PUBLIC,
        "authorization_grant_type": Application.GRANT_AUTHORIZATION_CODE,
        "registration_source": Application.RegistrationSource.CIMD,
        "cimd_expires_at": now + timedelta(seconds=max_age),
    }


def _upsert(client_id: str, fields: dict):
    Application = get_application_model()
    client = Application.objects.filter(client_id=client_id).first()
    if client is None:
        try:
            with transaction.atomic():
                return Application.objects.create(
                    client_id=client_id, user=None, client_secret="", hash_client_secret=False, **fields
                )
        except IntegrityError:
            # A concurrent first sight of the same URL won; update its row instead.
            client = Application.objects.filter(client_id=client_id).first()
            if client is None:
                raise
    if client.registration_source != Application.RegistrationSource.CIMD:
        raise CIMDError("client_id URL belongs to a client of another kind")
    for name, value in fields.items():
        setattr(client, name, value)
    # Only document-derived fields: disabled_at, verified_partner and last_used_at stay as they are.
    client.save(update_fields=[*fields, "updated"])
    return client


def client_get_by_metadata_url(client_id: str, request=None):
    """The client an https ``client_id`` names, fetched or refreshed as needed; None if unusable.

    None means "unknown client" to the caller: the URL is not a valid metadata
    URL, the document is unfetchable or invalid, or no fetch may be spent on it
    now (the host's budget is spent, the URL failed within the minute, or every
    server-wide fetch slot is busy). A cached row still within its lifetime (or
    disabled: no fetch is spent on it) is returned without a fetch. Raises
    LimiterUnavailable when the limiter's store cannot answer (503).
    """
    if not oauth2_settings.CIMD_ENABLED or not client_id or not is_cimd_client_id(client_id):
        return None
    if len(client_id) > MAX_CLIENT_ID_LENGTH:
        return None
    Application = get_application_model()
    now = timezone.now()
    existing = Application.objects.filter(client_id=client_id).first()
    if existing is not None:
        if existing.registration_source != Application.RegistrationSource.CIMD or not existing.is_usable(request):
            return existing
        if existing.cimd_expires_at is not None and now < existing.cimd_expires_at:
            return existing
    try:
        host = validate_client_id_url(client_id).hostname
    except CIMDError as exc:
        log.info("client metadata document refused for %r: %s", client_id, exc)
        return None
    # DOT's CIMD_REGISTRATION_PERMISSION_CLASSES (default: allow all) gate new fetches, as in DOT.
    if not registration_permitted(request, client_id):
        log.info("client metadata document refused by CIMD permission classes: %r", client_id)
        return None
    try:
        ratelimit_document_fetch(host=host, url=client_id)
    except RateLimited:
        log.info("client metadata fetch skipped: %r failed within the minute or its host's budget is spent", client_id)
        return None
    hold = oauth2_settings.CIMD_FETCH_TIMEOUT_SECONDS + SLOT_GRACE_SECONDS
    with ratelimit_in_flight(cap=budgets.CIMD_FETCHES_IN_FLIGHT, hold_seconds=hold) as held:
        if not held:
            log.warning("client metadata fetch skipped: every server-wide fetch slot is busy")
            return None
        try:
            metadata, max_age = _fetch_validated(client_id)
            return _upsert(client_id, _client_fields(metadata, max_age, timezone.now()))
        except CIMDError as exc:
            log.info("client metadata document refused for %r: %s", client_id, exc)
        except Exception:
            # A client-controlled URL on a pre-authentication path: degrade to "unknown client".
            log.exception("unexpected error resolving client metadata document %r", client_id)
    ratelimit_document_fetch_failed(url=client_id)
    return None
