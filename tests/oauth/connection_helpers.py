"""Tokens for the connected-apps tests, issued through the OAuth core's own
service (no browser round trip), and small request helpers."""

import uuid
from datetime import timedelta

from django.test import Client
from django.utils import timezone

from apps.oauth.models import AccessToken, RefreshToken
from apps.oauth.token import issuing
from apps.oauth.tokens import new_access_token, new_refresh_token
from tests.oauth.helpers import V1, signed_in

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
