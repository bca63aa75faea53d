"""The sat_ resolver: which OAuth tokens /v1 accepts (item 6)."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from apps.core.ids import digest, new_secret
from apps.oauth.models import AccessToken
from tests.support.oauth import MCP, make_client, tokens_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def app():
    return make_client(name="Pocket Assistant")


def me(token):
    return Client().get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {token}")


def refused(response):
    assert response.status_code == 401, response.content
    assert response.json()["error"]["code"] == "invalid_token"
    assert response["WWW-Authenticate"] == (
        'Bearer error="invalid_token", resource_metadata="http://testserver/.well-known/oauth-protected-resource/v1"'
    )


def test_v1_token_reads_me(user, app):
    tokens = tokens_for(user, app)
    response = me(tokens["access_token"])
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == user.id and body["email"] == user.email and body["livemode"] is True


def test_principal_of_an_oauth_token(user, app, rf):
    from apps.credentials.resolvers import resolve_bearer

    tokens = tokens_for(user, app)
    principal = resolve_bearer(rf.get("/v1/me"), tokens["access_token"], resource_path="v1")
    assert principal.kind == "oauth"
    assert principal.user == user
    assert principal.credential_id == app.client_id == principal.client_id
    assert principal.scopes == frozenset({"rates:read", "calls:read"})
    assert principal.livemode is True
    assert principal.resource == "http://testserver/v1"
    assert isinstance(principal.credential, AccessToken)


def test_resolution_is_one_query(user, app, rf, django_assert_num_queries):
    from apps.credentials.resolvers import resolve_bearer

    tokens = tokens_for(user, app)
    with django_assert_num_queries(1):
        resolve_bearer(rf.get("/v1/me"), tokens["access_token"], resource_path="v1")


def test_mcp_token_refused_at_v1(user, app):
    refused(me(tokens_for(user, app, resource=MCP)["access_token"]))


def test_v1_token_refused_for_mcp_resource(user, app, rf):
    from apps.core.errors import ApiError
    from apps.credentials.resolvers import resolve_bearer

    tokens = tokens_for(user, app)
    with pytest.raises(ApiError) as caught:
        resolve_bearer(rf.post("/mcp"), tokens["access_token"], resource_path="mcp")
    assert caught.value.code == "invalid_token"


def test_refresh_token_refused(user, app):
    refused(me(tokens_for(user, app)["refresh_token"]))


def test_expired_token_refused(user, app):
    tokens = tokens_for(user, app)
    AccessToken.objects.update(expires=timezone.now() - timedelta(seconds=1))
    refused(me(tokens["access_token"]))


def test_revoked_token_refused(user, app):
    tokens = tokens_for(user, app)
    AccessToken.objects.all().delete()
    refused(me(tokens["access_token"]))


def test_disabled_client_refused(user, app):
    tokens = tokens_for(user, app)
    app.disabled_at = timezone.now()
    app.save()
    refused(me(tokens["access_token"]))


def test_inactive_user_refused(user, app):
    tokens = tokens_for(user, app)
    user.is_active = False
    user.save()
    refused(me(tokens["access_token"]))


@pytest.mark.parametrize("token", ["sat_", "sat_short", "sat_" + "!" * 43, "srt_" + "a" * 43])
def test_malformed_tokens_refused(db, token):
    refused(me(token))


def test_registration_access_token_refused(user, app):
    """DOT's registration tokens share the table but are bound to no resource."""
    secret = new_secret("sat_")
    AccessToken.objects.create(
        user=None,
        application=app,
        token="",
        token_checksum=digest(secret),
        expires=timezone.now() + timedelta(days=365),
        scope="oauth2_provider:registration",
        resource=[],
    )
    refused(me(secret))
