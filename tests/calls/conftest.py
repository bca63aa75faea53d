"""Fixtures of the calls tests: an account, keys with chosen scopes, a client that sends them."""

import pytest
from django.test import Client

from apps.accounts.models import SharingSettings
from tests.support.factories import UserFactory, make_api_key

ALL_CALL_SCOPES = ["calls:read", "contacts:read", "transcripts:read"]


class Caller:
    """Sends GETs to /v1 with one bearer secret."""

    def __init__(self, secret: str):
        self.secret = secret
        self.client = Client()

    def get(self, path: str, params=None, **headers):
        return self.client.get(path, params or {}, HTTP_AUTHORIZATION=f"Bearer {self.secret}", **headers)


@pytest.fixture
def owner(db):
    return UserFactory(email="owner@example.com", display_name="Olive Owner")


@pytest.fixture
def stranger(db):
    return UserFactory(email="stranger@example.com", display_name="Sam Stranger")


@pytest.fixture
def caller_for(owner):
    """``caller_for(scopes, livemode=True, user=owner)``: a Caller with a fresh API key."""

    def make(scopes=("calls:read",), *, livemode=True, user=None):
        _key, secret = make_api_key(user or owner, scopes=list(scopes), livemode=livemode)
        return Caller(secret)

    return make


@pytest.fixture
def caller(caller_for):
    return caller_for(ALL_CALL_SCOPES)


@pytest.fixture
def summaries_on(owner):
    SharingSettings.objects.update_or_create(user=owner, defaults={"call_summaries": True})
