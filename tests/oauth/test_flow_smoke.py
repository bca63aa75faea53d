import pytest
from django.test import Client

from tests.support.oauth import exchange, get_code, make_client, pkce, signed_in


@pytest.mark.django_db
def test_full_flow(user):
    app = make_client()
    browser = signed_in(user)
    verifier, challenge = pkce()
    code = get_code(browser, app, challenge)
    response = exchange(Client(), app, code, verifier)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["access_token"].startswith("sat_")
    me = Client().get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {body['access_token']}")
    assert me.status_code == 200, me.content
