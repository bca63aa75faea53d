"""Asking a /v1 read twice, once on the fast path (apps/api_v1/fastpath.py) and once through DRF's own request
cycle, and comparing the answers: status, body and every header but the per-request ones."""

from unittest import mock

from django.test import Client

from apps.api_v1 import fastpath

PER_REQUEST = {"request-id", "ratelimit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after"}


def answer(path: str, secret: str | None = None, *, via_drf: bool, remote="127.0.0.1", **headers):
    if secret is not None:
        headers["HTTP_AUTHORIZATION"] = f"Bearer {secret}"
    with mock.patch.object(fastpath, "ENABLED", not via_drf):
        response = Client(REMOTE_ADDR=remote).get(path, **headers)
    body = response.json()
    if isinstance(body.get("error"), dict):
        body["error"].pop("request_id", None)
    kept = {name.lower(): value for name, value in response.items() if name.lower() not in PER_REQUEST}
    return response.status_code, body, kept


def alike(path: str, secret: str | None = None, **headers):
    """The answer, after checking that the fast path and DRF give the same one."""
    fast = answer(path, secret, via_drf=False, **headers)
    drf = answer(path, secret, via_drf=True, **headers)
    assert fast == drf, path
    return fast
