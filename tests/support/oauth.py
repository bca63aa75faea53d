"""Shared steps of the OAuth flow for the core tests."""

import base64
import hashlib
import secrets
import uuid
from datetime import timedelta
from urllib.parse import parse_qs, urlencode, urlsplit

from django.test import Client
from django.utils import timezone

from apps.oauth.models import AccessToken, Application, RefreshToken
from apps.oauth.token import issuing
from apps.oauth.tokens import new_access_token, new_refresh_token
from tests.support.factories import PASSWORD

BASE = "http://testserver"
V1 = f"{BASE}/v1"
MCP = f"{BASE}/mcp"
REDIRECT = "https://client.example.com/callback"
LOOPBACK = "http://127.0.0.1/callback"
FORM = "application/x-www-form-urlencoded"


def make_client(**fields) -> Application:
    return Application.objects.create(**client_fields(**fields))


def client_fields(**fields) -> dict:
    """The fields of a public client, ``fields`` over the defaults (for an ``Application`` not saved yet)."""
    values = {
        "name": "Example Assistant",
        "client_type": Application.CLIENT_PUBLIC,
        "authorization_grant_type": Application.GRANT_AUTHORIZATION_CODE,
        "redirect_uris": f"{REDIRECT} {LOOPBACK}",
        "client_secret": "",
        "hash_client_secret": False,
        "registration_source": Application.RegistrationSource.MANUAL,
    }
    values.update(fields)
    if "client_id" not in values:
        values["client_id"] = "dcr_" + secrets.token_hex(12)
    return values


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def authorize_params(app, challenge, **overrides) -> dict:
    params = {
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": REDIRECT,
        "scope": "rates:read calls:read",
        "state": "xyz-state",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "resource": V1,
    }
    params.update(overrides)
    return {k: v for k, v in params.items() if v is not None}


def signed_in(user) -> Client:
    browser = Client()
    assert browser.login(username=user.email, password=PASSWORD)
    return browser


def query(url: str) -> dict:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def start(browser, app, challenge, **overrides) -> str:
    """GET /oauth/authorize; returns the consent transaction id."""
    response = browser.get("/oauth/authorize", authorize_params(app, challenge, **overrides))
    assert response.status_code == 302, response.content
    location = response["Location"]
    assert location.startswith(f"{BASE}/oauth/consent?transaction=otx_"), location
    return query(location)["transaction"]


def decide(browser, txn_id, decision="allow", **extra):
    return browser.post(
        f"/api/oauth/transactions/{txn_id}/decision",
        {"decision": decision, **extra},
        content_type="application/json",
    )


def get_code(browser, app, challenge, **overrides) -> str:
    txn_id = start(browser, app, challenge, **overrides)
    response = decide(browser, txn_id, "allow", confirm_sensitive=True)
    assert response.status_code == 200, response.content
    return query(response.json()["redirect_to"])["code"]


def post_form(client, path, data, **extra):
    data = {k: v for k, v in data.items() if v is not None}
    return client.post(path, urlencode(data, doseq=True), content_type=FORM, **extra)


def exchange_fields(app, code, verifier, /, **overrides) -> dict:
    """The fields of the token request that redeems ``code``."""
    data = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "client_id": app.client_id,
        "redirect_uri": REDIRECT,
        "resource": V1,
    }
    data.update(overrides)
    return data


def exchange(client, app, code, verifier, /, **overrides):
    return post_form(client, "/oauth/token", exchange_fields(app, code, verifier, **overrides))


def refresh(client, app, refresh_token, /, **overrides):
    data = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": app.client_id}
    data.update(overrides)
    return post_form(client, "/oauth/token", data)


def tokens_for(user, app, resource=V1, scope="rates:read calls:read") -> dict:
    browser = signed_in(user)
    verifier, challenge = pkce()
    code = get_code(browser, app, challenge, resource=resource, scope=scope)
    response = exchange(Client(), app, code, verifier, resource=resource)
    assert response.status_code == 200, response.content
    return response.json()


# -- connected apps: tokens issued through the OAuth core's own service (no browser round trip)

BASE_URL = "/api/oauth/connections"


def issue(user, app, *, resource=V1, scope="rates:read calls:read", now=None) -> dict:
    """A fresh grant family for ``user`` and ``app``: {"access_token", "refresh_token"}.

    ``now`` back-dates the issue (the rows' ``created`` is set after the fact,
    since the models stamp it themselves).
    """
    stamp = now
    now = now or timezone.now()
    family = uuid.uuid4()
    token = {"access_token": new_access_token(), "refresh_token": new_refresh_token(), "scope": scope}
    issuing.tokens_issue(
        token=token,
        user=user,
        application=app,
        family=family,
        resource=[resource],
        granted_scope=scope,
        now=now,
        family_expires=now + timedelta(days=30),
        previous=None,
    )
    if stamp is not None:
        RefreshToken.objects.filter(token_family=family).update(created=stamp)
        AccessToken.objects.filter(family=family).update(created=stamp)
    return token


def me(access_token: str, client: Client | None = None):
    return (client or Client()).get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {access_token}")


def disconnect(browser: Client, client_id: str, **extra):
    return browser.delete(f"{BASE_URL}/{client_id}", **extra)


__all__ = ["BASE_URL", "disconnect", "issue", "me", "signed_in"]
