"""POST /oauth/revoke (RFC 7009, docs/spec.md 4.3)."""

import pytest
from django.test import Client

from apps.oauth.models import AccessToken, RefreshToken
from tests.support.oauth import make_client, post_form, refresh, tokens_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def tokens(user, app):
    return tokens_for(user, app)


def me(access_token):
    return Client().get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {access_token}")


def revoke(data, **extra):
    return post_form(Client(), "/oauth/revoke", data, **extra)


def test_revoke_access_token(app, tokens):
    assert me(tokens["access_token"]).status_code == 200
    response = revoke({"token": tokens["access_token"]})
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    assert me(tokens["access_token"]).status_code == 401
    # the refresh token is a separate credential and still works
    assert refresh(Client(), app, tokens["refresh_token"]).status_code == 200


def test_revoke_refresh_token_ends_the_grant(app, tokens):
    response = revoke({"token": tokens["refresh_token"], "token_type_hint": "refresh_token"})
    assert response.status_code == 200
    assert refresh(Client(), app, tokens["refresh_token"]).json()["error"] == "invalid_grant"
    assert me(tokens["access_token"]).status_code == 401
    assert not RefreshToken.objects.filter(revoked__isnull=True).exists()


@pytest.mark.parametrize("token", ["sat_unknown", "srt_unknown", "garbage", "x" * 5000])
def test_unknown_token_is_200(tokens, token):
    assert revoke({"token": token}).status_code == 200
    assert AccessToken.objects.count() == 1


def test_revoke_twice_is_200(tokens):
    assert revoke({"token": tokens["access_token"]}).status_code == 200
    assert revoke({"token": tokens["access_token"]}).status_code == 200


def test_another_clients_id_revokes_nothing(tokens):
    other = make_client()
    assert revoke({"token": tokens["access_token"], "client_id": other.client_id}).status_code == 200
    assert me(tokens["access_token"]).status_code == 200


def test_own_client_id_revokes(app, tokens):
    assert revoke({"token": tokens["access_token"], "client_id": app.client_id}).status_code == 200
    assert me(tokens["access_token"]).status_code == 401


def test_missing_token_is_invalid_request(tokens):
    response = revoke({})
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"
    assert response["Cache-Control"] == "no-store"
    assert revoke({"token": ""}).status_code == 400


def test_query_string_or_json_is_refused(tokens):
    response = Client().post(
        f"/oauth/revoke?token={tokens['access_token']}", "", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 400 and response.json()["error"] == "invalid_request"
    response = Client().post("/oauth/revoke", {"token": tokens["access_token"]}, content_type="application/json")
    assert response.status_code == 400 and response.json()["error"] == "invalid_request"
    assert me(tokens["access_token"]).status_code == 200


def test_get_is_not_allowed():
    assert Client().get("/oauth/revoke").status_code == 405
