"""The oauthlib server: only the two grants of docs/spec.md 4.3, with our grant-level rules.

Authorization (the consent transaction) is ours (views/authorize.py) and
revocation has the contract's own rules (views/token.py), so this server is a token
endpoint only; nothing else of oauthlib's all-in-one Server is reachable.
"""

from oauthlib.oauth2 import BearerToken, TokenEndpoint
from oauthlib.oauth2.rfc6749 import errors
from oauthlib.oauth2.rfc6749.grant_types import AuthorizationCodeGrant, RefreshTokenGrant


def _require_bound_resource(request):
    """The code was issued for one resource; the exchange must name that same one."""
    grant = getattr(request, "grant", None)
    if grant is None or grant.resource != [getattr(request, "resource", None)]:
        raise errors.InvalidGrantError(
            description="resource does not match the authorization request.", request=request
        )


def _refresh_resource_matches(request):
    refresh = getattr(request, "refresh_token_instance", None)
    if (
        refresh is not None
        and getattr(request, "resource", None) is not None
        and refresh.resource != [request.resource]
    ):
        raise errors.InvalidGrantError(description="resource does not match the grant.", request=request)


class Server(TokenEndpoint):
    def __init__(
        self, request_validator, token_expires_in=None, token_generator=None, refresh_token_generator=None, **kwargs
    ):
        self.auth_grant = AuthorizationCodeGrant(request_validator, post_token=[_require_bound_resource])
        # S256 only: a "plain" challenge can never be stored, and would not verify.
        self.auth_grant._code_challenge_methods = {"S256": self.auth_grant._code_challenge_methods["S256"]}
        self.refresh_grant = RefreshTokenGrant(request_validator, issue_new_refresh_tokens=True)
        self.refresh_grant.custom_validators.post_token.append(_refresh_resource_matches)
        self.bearer = BearerToken(request_validator, token_generator, token_expires_in, refresh_token_generator)
        TokenEndpoint.__init__(
            self,
            default_grant_type="authorization_code",
            grant_types={"authorization_code": self.auth_grant, "refresh_token": self.refresh_grant},
            default_token_type=self.bearer,
        )
