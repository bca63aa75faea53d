"""The rates tests' deck, and their keys holding rates:read (``live_secret``, ``test_secret``: tests/conftest.py)."""

import pytest

from tests.rates.factories import make_deck

RATES = ["rates:read"]


@pytest.fixture
def deck(db):
    return make_deck()


@pytest.fixture
def key_scopes():
    return RATES


@pytest.fixture
def rates(client, live_secret):
    """GET /v1/rates with ``to`` (omitted when None) and a live key holding rates:read."""

    def get(to=None, secret=None, **extra):
        query = {} if to is None else {"to": to}
        return client.get("/v1/rates", query, HTTP_AUTHORIZATION=f"Bearer {secret or live_secret}", **extra)

    return get
