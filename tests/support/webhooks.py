"""Webhook test helpers: a /v1 caller with one bearer secret, and keys that make one."""

from rest_framework.test import APIClient

from tests.support.factories import make_api_key

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
