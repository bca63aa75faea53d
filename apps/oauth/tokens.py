"""``sat_``/``srt_`` token generation and bearer resolution of access tokens for /v1 and /mcp."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from apps.core.ids import looks_like, new_secret
from apps.credentials.challenges import invalid_token, wrong_resource_message
from apps.credentials.principal import Principal, user_can_act

ACCESS_PREFIX = "sat_"
REFRESH_PREFIX = "srt_"


def new_access_token(request=None) -> str:
    return new_secret(ACCESS_PREFIX)


def new_refresh_token(request=None) -> str:
    return new_secret(REFRESH_PREFIX)


def resolve_access_token(request, secret: str, *, resource_path: str):
    """One indexed query by digest (user and client joined); refuses anything not
    exactly an unexpired access token bound to this resource.

    Refresh tokens never get here (their prefix has no resolver), and DOT's
    registration access tokens are bound to no resource, so they fail below.
    """
    from .connections.revocation import revoked_token_error
    from .selectors import access_token_get_by_secret

    if not looks_like(secret, ACCESS_PREFIX):
        raise invalid_token(resource_path)
    token = access_token_get_by_secret(secret)
    resource = f"{settings.BASE_URL}/{resource_path}"
    if (
        token is None
        or token.expires <= timezone.now()
        or token.application is None
        or not token.application.is_usable(request)
        or token.user is None
        or not user_can_act(token.user)
    ):
        # A token the user revoked (disconnect, password change) asks to reconnect.
        raise revoked_token_error(token=token, resource_path=resource_path) or invalid_token(resource_path)
    if token.resource != [resource]:
        raise invalid_token(resource_path, wrong_resource_message(resource_path))
    return Principal(
        kind="oauth",
        user=token.user,
        credential_id=token.application.client_id,
        scopes=frozenset(token.scope.split()),
        livemode=True,
        # Served in the version in force at consent (docs/spec.md 9.4), as an API key is in its creation's.
        api_version=token.family_api_version or None,
        resource=resource,
        client_id=token.application.client_id,
        credential=token,
    )


def standing(*, user_id, credential_id: str) -> frozenset | None:
    """The scopes of the user's connection to the client ``credential_id``, or None once it has ended.

    A connection holds what its live grant families' latest access tokens hold: a
    refresh that asked for less drops a scope at once (its refresh token keeps the
    whole consent, so a later refresh may ask for it again, and then it is held
    again). A grant issued without a refresh token holds what its unexpired access
    tokens hold (settings.CREDENTIAL_STANDING).
    """
    from .connections.selectors import live_refresh_q
    from .models import AccessToken, Application, RefreshToken

    now = timezone.now()
    application = Application.objects.filter(client_id=credential_id).first()
    if application is None or not application.is_usable(None):
        return None
    user = get_user_model().objects.filter(pk=user_id).first()
    if user is None or not user_can_act(user):
        return None
    rows = {"user_id": user_id, "application": application}
    families = list(
        RefreshToken.objects.filter(live_refresh_q(now), **rows).values_list("scope", "access_token__scope")
    )
    if families:
        return frozenset(s for granted, latest in families for s in (latest if latest is not None else granted).split())
    tokens = list(AccessToken.objects.filter(expires__gt=now, **rows).values_list("scope", flat=True))
    if not tokens:
        return None
    return frozenset(s for scope in tokens for s in scope.split())
