"""The OAuth2Validator subclass: the token path in as few statements as possible.

DOT's stock validator re-reads the grant for every check and deletes used
codes; here the code row is read once and marked used rather than deleted, so a
second redemption is seen; two concurrent ones cannot both mint tokens because
the statement that writes the tokens redeems the code only if it is still unused
(issuing.py). A refresh token's row is read locked (``SELECT ... FOR UPDATE``)
for the rest of its exchange, which runs in one transaction
(``issuing.exchange_transaction``).

The client is read in the same statement as the code or refresh token
(joined), not looked up by the presented client id first: the credential names
its client, so the presented id only has to equal that client's.
"""

from django.utils import timezone
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauth2_provider.scopes import BaseScopes
from oauth2_provider.settings import oauth2_settings
from oauthlib.oauth2.rfc6749 import errors

from apps.core.ids import digest
from apps.core.request_context import current_request, notes
from apps.core.sql import CompiledQuery
from apps.credentials.principal import user_can_act
from apps.credentials.scopes import ALL_SCOPES, SCOPES

from .. import services
from ..connections.revocation import RECONNECT_DESCRIPTION, grant_revoked_by_user, refresh_revoked_by_user
from ..models import Grant, RefreshToken
from . import issuing, lockouts
from .lifetimes import REFRESH_ABSOLUTE_LIFETIME
from .revocation import family_revoke


class ScopesBackend(BaseScopes):
    def get_all_scopes(self):
        return {name: s.sentence for name, s in SCOPES.items()}

    def get_available_scopes(self, application=None, request=None, *args, **kwargs):
        return list(ALL_SCOPES)

    def get_default_scopes(self, application=None, request=None, *args, **kwargs):
        return []


class PresentedClient:
    """The client a token request names, before its code or refresh token is read.

    Only the presented id: ``validate_code`` and ``validate_refresh_token``
    replace it with the credential's own client once that client carries this
    id. An unknown or disabled client then fails the grant check with
    ``invalid_grant`` (docs/spec.md 7.3 has no ``invalid_client`` at the token endpoint).
    """

    pk = None

    def __init__(self, client_id):
        self.client_id = client_id

    def is_usable(self, request=None) -> bool:
        return False


def _revoked_by_user(request) -> errors.InvalidGrantError:
    """A known code or token the user revoked (disconnect, password change): the answer asks to
    reconnect, and the view counts no failed exchange for it (docs/spec.md 8.3). The verdict is
    noted once, here, where the row was read; the view never reads the row again."""
    served = current_request.get()
    if served is not None:
        notes(served).oauth_credential_revoked_by_user = True
    return errors.InvalidGrantError(description=RECONNECT_DESCRIPTION, request=request)


def _used_code(grant, request) -> errors.InvalidGrantError:
    if grant_revoked_by_user(grant=grant):  # voided by a disconnect, not redeemed twice
        return _revoked_by_user(request)
    return errors.InvalidGrantError(description="The authorization code was already used.", request=request)


def _issued_to(application, client) -> bool:
    # Client ids are unique, so this is the same test as looking the presented id up and
    # comparing keys, without the statement; a disabled client is as good as unknown.
    return application.client_id == client.client_id and application.is_usable()


# What a refresh reads of the token row and its joins; the rest (secrets, the
# user's profile, most of the client's registration) would only be compiled and
# converted for nothing on the hottest statement of the endpoint. A field left
# out costs a query if read later, which the query-count tests would show.
REFRESH_FIELDS = (
    "id",
    "user_id",
    "application_id",
    "token_family",
    "resource",
    "scope",
    "revoked",
    "expires",
    "family_expires",
    "user__id",
    "user__is_active",
    "application__id",
    "application__client_id",
    "application__name",
    "application__disabled_at",
    "application__last_used_at",
    "application__allowed_origins",
)


def _lock(queryset):
    # Lock only the credential's row, not the joined user and client.
    return queryset.select_for_update(of=("self",))


# The two reads that open an exchange, compiled by Django once per process (apps/core/sql.py).
CODE_BY_DIGEST = CompiledQuery(
    lambda code_digest: Grant.objects.select_related("user", "application").filter(code=code_digest)[:1]
)
REFRESH_TOKEN_BY_DIGEST = CompiledQuery(
    lambda token_digest: (
        _lock(RefreshToken.objects.select_related("user", "application").only(*REFRESH_FIELDS))
        .filter(token_checksum=token_digest)
        .order_by("revoked")[:1]
    )
)


class Validator(OAuth2Validator):
    def client_authentication_required(self, request, *args, **kwargs):
        return False  # every client is public (docs/spec.md 2.5)

    def authenticate_client_id(self, client_id, request, *args, **kwargs):
        # No query: the code or refresh token's own client is read with it and compared then.
        request.client = PresentedClient(client_id)
        return True

    def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
        return grant_type in oauth2_settings.OAUTH2_GRANT_TYPES_SUPPORTED

    # -- authorization code -------------------------------------------------

    def validate_code(self, client_id, code, client, request, *args, **kwargs):
        grant = CODE_BY_DIGEST.first(code_digest=digest(code))
        if grant is None or not _issued_to(grant.application, client):
            return False
        if grant.used_at is not None:
            raise _used_code(grant, request)
        if grant.is_expired() or not user_can_act(grant.user):
            return False
        request.grant = grant
        request.client = grant.application
        request.user = grant.user
        request.scopes = grant.scope.split()
        return True

    def get_code_challenge(self, code, request):
        return request.grant.code_challenge or None

    def get_code_challenge_method(self, code, request):
        return request.grant.code_challenge_method or None

    def is_pkce_required(self, client_id, request):
        return True

    def confirm_redirect_uri(self, client_id, code, redirect_uri, client, request, *args, **kwargs):
        if request.grant.redirect_uri != redirect_uri:
            # oauthlib's own mismatch error is invalid_request; docs/spec.md 7.3 says invalid_grant.
            raise errors.InvalidGrantError(description="redirect_uri does not match the authorization request.")
        return True

    def invalidate_authorization_code(self, client_id, code, request, *args, **kwargs):
        # oauthlib asks after save_bearer_token, which marked the code used with the tokens it
        # wrote (issuing.tokens_issue); a code is never left usable by a request that got this far.
        if getattr(request, "code_redeemed", False):
            return
        Grant.objects.filter(pk=request.grant.pk).update(used_at=timezone.now())

    # -- refresh token ------------------------------------------------------

    def validate_refresh_token(self, refresh_token, client, request, *args, **kwargs):
        refresh = REFRESH_TOKEN_BY_DIGEST.first(token_digest=digest(refresh_token))
        if refresh is None:
            return False
        # Reuse is judged before the client and before the family budget: a rotated
        # token is a stolen copy whichever client id comes with it, and however busy
        # its family is, so its family falls at once.
        if refresh.revoked is not None:
            if refresh_revoked_by_user(refresh=refresh):  # not a theft signal: the user revoked it
                raise _revoked_by_user(request)
            # A rotated token presented again: someone holds a copy. Revoke the family.
            family_revoke(family=refresh.token_family)
            raise errors.InvalidGrantError(
                description="The refresh token was already used; the grant has been revoked.", request=request
            )
        if not _issued_to(refresh.application, client):
            return False
        now = timezone.now()
        # A row without an expiry (only possible by hand) never outlives the 14/30-day limits.
        if refresh.expires is None or refresh.expires <= now or not user_can_act(refresh.user):
            return False
        request.refresh_token_instance = refresh
        request.client = refresh.application
        request.user = refresh.user
        return True

    def get_original_scopes(self, refresh_token, request, *args, **kwargs):
        return request.refresh_token_instance.scope.split()

    def is_within_original_scope(self, request_scopes, refresh_token, request, *args, **kwargs):
        return False

    def rotate_refresh_token(self, request):
        return True

    # -- issuing ------------------------------------------------------------

    def save_bearer_token(self, token, request, *args, **kwargs):
        now = timezone.now()
        previous = getattr(request, "refresh_token_instance", None)
        if previous is not None:
            # Every check has passed, so this refresh succeeds unless its family's budget
            # refuses it: only successful token requests count (docs/spec.md 8.3). Counted before
            # any write; a refusal raises and the view's transaction rolls back (the row
            # lock included), so a refused refresh leaves the token as it was.
            lockouts.refresh_succeeding(family=previous.token_family, client_id=request.client.client_id)
            family, resource = previous.token_family, previous.resource
            granted_scope, family_expires = previous.scope, previous.family_expires
        else:
            grant = request.grant
            family, resource, granted_scope = grant.family, grant.resource, grant.scope
            family_expires = now + REFRESH_ABSOLUTE_LIFETIME
        # Before the tokens: a code exchange on PostgreSQL has no transaction, and a stamp that
        # failed after its tokens were written would answer 503 for a code already spent.
        services.application_mark_used(application=request.client, now=now)
        try:
            issuing.tokens_issue(
                token=token,
                user=request.user,
                application=request.client,
                family=family,
                resource=resource,
                granted_scope=granted_scope,
                now=now,
                family_expires=family_expires,
                previous=previous,
                redeemed=None if previous is not None else request.grant,
            )
        except issuing.CodeAlreadyRedeemed:
            # Used since it was read (a concurrent exchange won, or a disconnect voided it), or
            # gone (its client or user deleted): the answer a later read of the row would give.
            # DOT's backend turns the error into the response.
            grant = Grant.objects.select_related("application").filter(pk=request.grant.pk).first()
            raise (errors.InvalidGrantError(request=request) if grant is None else _used_code(grant, request)) from None
        request.code_redeemed = previous is None
        request.token_family = family
