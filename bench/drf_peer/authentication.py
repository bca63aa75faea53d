"""A plain DRF authentication class for the service's API keys (the key found by its SHA-256, as
the service stores it) and what DOT's TokenHasScope asks of a key."""

import hashlib

from django.utils import timezone
from rest_framework import authentication, exceptions

from apps.apikeys.models import ApiKey


class KeyToken:
    """An API key as ``request.auth``: what TokenHasScope asks of a token (``scope``, ``is_valid``)."""

    def __init__(self, key: ApiKey):
        self.key = key
        self.scope = " ".join(key.scopes)
        self.livemode = key.livemode

    def is_valid(self, scopes=None) -> bool:
        return self.key.expires_at > timezone.now() and set(scopes or ()) <= set(self.key.scopes)

    def is_expired(self) -> bool:
        return self.key.expires_at <= timezone.now()

    def allow_scopes(self, scopes) -> bool:
        return set(scopes or ()) <= set(self.key.scopes)


class ApiKeyAuthentication(authentication.BaseAuthentication):
    """``Authorization: Bearer sk_live_...``: the key found by its SHA-256, as the service stores it.
    Anything else is left to the next class (django-oauth-toolkit's)."""

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if len(header) != 2 or header[0].lower() != b"bearer" or not header[1].startswith((b"sk_live_", b"sk_test_")):
            return None
        digest = hashlib.sha256(header[1]).hexdigest()
        key = (
            ApiKey.objects.select_related("user")
            .filter(secret_digest=digest, revoked_at__isnull=True, expires_at__gt=timezone.now())
            .first()
        )
        if key is None or not key.user.is_active:
            raise exceptions.AuthenticationFailed("Invalid API key.")
        return key.user, KeyToken(key)

    def authenticate_header(self, request):
        return "Bearer"
