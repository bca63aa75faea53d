"""Webhook test helpers: a /v1 caller with one bearer secret, keys that make one, and a
connected app acting with every scope."""

from rest_framework.test import APIClient

from apps.credentials.principal import Principal
from apps.credentials.scopes import ALL_SCOPES
from tests.support.factories import make_api_key
from tests.support.oauth import issue, make_client

ALL_READS = ["webhooks:manage", "calls:read", "credits:read", "messages:read", "transcripts:read"]


class Caller:
    """A /v1 client with one bearer secret."""

    def __init__(self, secret: str):
        self.secret = secret
        self.client = APIClient()

    def _headers(self, extra):
        return {"HTTP_AUTHORIZATION": f"Bearer {self.secret}", **extra}

    def get(self, path, params=None, **extra):
        return self.client.get(path, params or {}, **self._headers(extra))

    def post(self, path, data=None, **extra):
        return self.client.post(path, data if data is not None else {}, format="json", **self._headers(extra))

    def delete(self, path, **extra):
        return self.client.delete(path, **self._headers(extra))


def key_caller(user, *, scopes=ALL_READS, livemode=False) -> tuple:
    key, secret = make_api_key(user, scopes=scopes, livemode=livemode)
    return key, Caller(secret)


def connected_app(user, name: str, **issue_options) -> tuple:
    """An app ``user`` connected with every scope, and the live-mode principal it acts as
    (``issue_options``: ``resource``)."""
    app = make_client(name=name)
    issue(user, app, scope=" ".join(ALL_SCOPES), **issue_options)
    principal = Principal(
        kind="oauth",
        user=user,
        credential_id=app.client_id,
        client_id=app.client_id,
        scopes=frozenset(ALL_SCOPES),
        livemode=True,
    )
    return app, principal
