"""Secrets at rest: after a full flow, no issued secret is stored anywhere in the database.

Every secret the service hands out (API keys as created and as rotated, authorization
codes, access and refresh tokens before and after rotation, the consent binding
cookie) and the one secret a client keeps (its PKCE verifier) is searched for in every
column of every table, whole and without its prefix. Only digests may be stored.
"""

import json
import uuid

import pytest
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from tests.support.factories import make_api_key
from tests.support.oauth import (
    MCP,
    REDIRECT,
    V1,
    exchange,
    get_code,
    pkce,
    post_form,
    refresh,
    signed_in,
)

PREFIXES = ("sk_live_", "sk_test_", "sat_", "srt_")


def random_part(secret: str) -> str:
    for prefix in PREFIXES:
        if secret.startswith(prefix):
            return secret[len(prefix) :]
    return secret


def every_stored_value():
    """(table, column, text) for every non-null value of every column of every table."""
    with connection.cursor() as cursor:
        tables = connection.introspection.table_names(cursor)
        for table in tables:
            name = connection.ops.quote_name(table)
            cursor.execute(f"SELECT * FROM {name}")  # table names come from introspection
            columns = [c[0] for c in cursor.description]
            for row in cursor.fetchall():
                for column, value in zip(columns, row, strict=True):
                    if value is None:
                        continue
                    if isinstance(value, memoryview):
                        value = bytes(value)
                    if isinstance(value, bytes):
                        value = value.decode("utf-8", "replace")
                    elif not isinstance(value, str):
                        value = json.dumps(value, default=str)
                    yield table, column, value


def register_client() -> str:
    body = {
        "client_name": "Secrets At Rest",
        "redirect_uris": [REDIRECT],
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "application_type": "web",
    }
    response = Client().post("/oauth/register", json.dumps(body), content_type="application/json")
    assert response.status_code == 201, response.content
    assert "client_secret" not in response.json()
    return response.json()["client_id"]


@pytest.mark.django_db
def test_no_issued_secret_is_stored_in_any_table(user):
    secrets: dict[str, str] = {}

    # API keys: one made by the service, one created and rotated through the endpoints,
    # with idempotent replays stored (a replay answers "secret": null).
    _key, secrets["service api key"] = make_api_key(user)
    dashboard = APIClient()
    dashboard.force_login(user)
    idem = str(uuid.uuid4())
    body = {"name": "At rest", "scopes": ["rates:read"]}
    created = dashboard.post("/v1/api-keys", body, format="json", HTTP_IDEMPOTENCY_KEY=idem)
    assert created.status_code == 201, created.content
    secrets["created api key"] = created.json()["secret"]
    replay = dashboard.post("/v1/api-keys", body, format="json", HTTP_IDEMPOTENCY_KEY=idem)
    assert replay["Idempotent-Replayed"] == "true" and replay.json()["secret"] is None
    test_key = dashboard.post("/v1/api-keys", {**body, "livemode": False}, format="json")
    secrets["test api key"] = test_key.json()["secret"]
    key_id = created.json()["id"]
    idem = str(uuid.uuid4())
    rotated = dashboard.post(f"/v1/api-keys/{key_id}/rotate", format="json", HTTP_IDEMPOTENCY_KEY=idem)
    assert rotated.status_code == 200, rotated.content
    secrets["rotated api key"] = rotated.json()["secret"]
    replay = dashboard.post(f"/v1/api-keys/{key_id}/rotate", format="json", HTTP_IDEMPOTENCY_KEY=idem)
    assert replay.json()["secret"] is None
    me = APIClient().get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {secrets['rotated api key']}")
    assert me.status_code == 200  # last_used_at written, still no secret

    # OAuth: a registered client, consent, codes for both resources, exchanges, refreshes, a revoke.
    from apps.oauth.models import Application

    app = Application.objects.get(client_id=register_client())
    browser = signed_in(user)
    for resource in (V1, MCP):
        verifier, challenge = pkce()
        code = get_code(browser, app, challenge, resource=resource, scope="rates:read")
        secrets[f"binding cookie {resource}"] = browser.cookies["oauth_binding"].value
        secrets[f"code {resource}"] = code
        secrets[f"verifier {resource}"] = verifier
        tokens = exchange(Client(), app, code, verifier, resource=resource).json()
        secrets[f"access {resource}"] = tokens["access_token"]
        secrets[f"refresh {resource}"] = tokens["refresh_token"]
        rotated_tokens = refresh(Client(), app, tokens["refresh_token"]).json()
        secrets[f"refreshed access {resource}"] = rotated_tokens["access_token"]
        secrets[f"rotated refresh {resource}"] = rotated_tokens["refresh_token"]
    assert (
        APIClient().get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {secrets['refreshed access ' + V1]}").status_code == 200
    )
    # Reuse of a rotated refresh token (family revoked) and an explicit revocation also write rows.
    assert refresh(Client(), app, secrets[f"refresh {MCP}"]).status_code == 400
    assert post_form(Client(), "/oauth/revoke", {"token": secrets[f"rotated refresh {V1}"]}).status_code == 200

    assert all(secrets.values()), secrets
    needles = {}
    for label, secret in secrets.items():
        needles[secret] = label
        needles[random_part(secret)] = f"{label} (random part)"

    found = [
        (table, column, needles[needle])
        for table, column, text in every_stored_value()
        for needle in needles
        if needle in text
    ]
    assert found == []


@pytest.mark.django_db
def test_the_scan_finds_a_planted_secret(user):
    """The scan itself works: a secret written into a text column is found."""
    _key, secret = make_api_key(user)
    user.display_name = f"planted {secret}"
    user.save()
    hits = [(table, column) for table, column, text in every_stored_value() if random_part(secret) in text]
    assert hits and hits[0][1] == "display_name"
