"""Swapped django-oauth-toolkit models (created in this app's first migration).

Every secret here (access token, refresh token, authorization code) is stored
only as its SHA-256 digest; the plaintext leaves the server once. A grant
family (one UUID) ties the code to every token descending from it, so reuse of
any member can revoke the whole family in one statement.
"""

import uuid
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone
from oauth2_provider.generators import generate_client_id
from oauth2_provider.models import (
    AbstractAccessToken,
    AbstractApplication,
    AbstractGrant,
    AbstractIDToken,
    AbstractRefreshToken,
)

from apps.core.ids import id_default

from .redirects import redirect_uri_matches

TRANSACTION_LIFETIME = timedelta(minutes=10)


class Application(AbstractApplication):
    WEB, NATIVE = "web", "native"
    APPLICATION_TYPES = ((WEB, "Web"), (NATIVE, "Native"))

    # A client metadata document URL is the client_id, so it needs the room.
    client_id = models.CharField(
        max_length=255, unique=True, db_index=True, default=generate_client_id, verbose_name="client ID"
    )
    verified_partner = models.BooleanField(default=False)
    disabled_at = models.DateTimeField(null=True, blank=True)
    # Last successful token request; written at most once a minute.
    last_used_at = models.DateTimeField(null=True, blank=True)
    application_type = models.CharField(max_length=16, choices=APPLICATION_TYPES, default=NATIVE)
    client_uri = models.URLField(blank=True, max_length=2000)

    class Meta(AbstractApplication.Meta):
        swappable = "OAUTH2_PROVIDER_APPLICATION_MODEL"

    @property
    def is_disabled(self) -> bool:
        return self.disabled_at is not None

    def is_usable(self, request=None) -> bool:
        """DOT's hook for whether a client may be used at all (its own validator asks it too):
        the one rule, a client disabled by the service is unusable everywhere."""
        return not self.is_disabled

    def redirect_uri_allowed(self, uri: str) -> bool:
        # DOT's matcher never reads a loopback port, so ":abc" matched; every caller gets ours (docs/spec.md 5.4).
        return redirect_uri_matches(uri, self.redirect_uris.split())

    @property
    def registration_kind(self) -> str:
        if self.verified_partner:
            return "verified partner"
        if self.registration_source == self.RegistrationSource.CIMD:
            return "registered by URL"
        return "self-registered"

    @property
    def is_self_registered(self) -> bool:
        """Dynamically registered and not vouched for: sensitive scopes need a second tick."""
        return self.registration_source == self.RegistrationSource.DCR and not self.verified_partner


class Grant(AbstractGrant):
    """An authorization code. ``code`` holds the digest of the code, never the code."""

    family = models.UUIDField(default=uuid.uuid4, editable=False, db_index=True)
    # Used codes are kept (not deleted) so that a second redemption is detected.
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta(AbstractGrant.Meta):
        swappable = "OAUTH2_PROVIDER_GRANT_MODEL"


class GrantFamily(models.Model):
    """The fixed facts of one consent, kept as long as the tokens it led to: the
    code and every token descending from it share ``family``.

    The redirect URI is the one the authorization request named; the code
    exchange must present the same one (docs/spec.md 3.2), so it is the address this
    connection actually uses, whichever other URIs the client registered. The
    Connected apps screen shows its host (docs/spec.md 5.12). Written with the code.
    """

    family = models.UUIDField(primary_key=True, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    application = models.ForeignKey(
        settings.OAUTH2_PROVIDER_APPLICATION_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    redirect_uri = models.TextField()
    created = models.DateTimeField(default=timezone.now)
    # The /v1 version in force when the user consented: the family's tokens are served in it
    # unless a request names another (docs/spec.md 9.2, 9.4). Blank for a family consented
    # before versions were recorded; those are served in the current version.
    api_version = models.CharField(max_length=10, blank=True, default="")

    def __str__(self):
        return str(self.family)


class AccessToken(AbstractAccessToken):
    family = models.UUIDField(null=True, blank=True, editable=False, db_index=True)

    class Meta(AbstractAccessToken.Meta):
        swappable = "OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL"


class RefreshToken(AbstractRefreshToken):
    # Idle limit of this token (created + 14 days) capped by the family's
    # absolute limit (first issue + 30 days); rotation carries the cap forward.
    expires = models.DateTimeField(null=True, blank=True)
    family_expires = models.DateTimeField(null=True, blank=True)
    # Scopes granted at consent, carried unchanged through rotation so that a
    # narrowed refresh never makes the narrowing permanent.
    scope = models.TextField(blank=True, default="")

    class Meta(AbstractRefreshToken.Meta):
        swappable = "OAUTH2_PROVIDER_REFRESH_TOKEN_MODEL"


class IDToken(AbstractIDToken):
    # Unused (no OpenID Connect), but swapped with the others so that the
    # first migration has no dependency on oauth2_provider's own tables.
    class Meta(AbstractIDToken.Meta):
        swappable = "OAUTH2_PROVIDER_ID_TOKEN_MODEL"


new_transaction_id = id_default("otx_", "new_transaction_id")


def default_transaction_expiry():
    return timezone.now() + TRANSACTION_LIFETIME


class ConsentTransaction(models.Model):
    """A validated authorization request waiting for the user's decision (docs/spec.md 3.1).

    Bound to the browser that started it (digest of a random cookie value) and
    to the signed-in user; decided once.
    """

    ALLOW, DENY = "allow", "deny"
    DECISIONS = ((ALLOW, "Allow"), (DENY, "Deny"))

    id = models.CharField(primary_key=True, max_length=32, default=new_transaction_id, editable=False)
    binding_digest = models.CharField(max_length=64)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    application = models.ForeignKey(
        settings.OAUTH2_PROVIDER_APPLICATION_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    scopes = models.JSONField(default=list)
    redirect_uri = models.TextField()
    state = models.TextField()
    code_challenge = models.CharField(max_length=128)
    resource = models.CharField(max_length=255)
    created = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(default=default_transaction_expiry)
    decided_at = models.DateTimeField(null=True, blank=True)
    decision = models.CharField(max_length=8, choices=DECISIONS, blank=True, default="")

    def __str__(self):
        return self.id

    def is_expired_at(self, now) -> bool:
        return now >= self.expires_at
