import pytest

from tests.rates.factories import make_deck
from tests.support.factories import make_api_key

RATES = ["rates:read"]


@pytest.fixture
def deck(db):
    return make_deck()


@pytest.fixture
def live_secret(user):
    return make_api_key(user, scopes=RATES)[1]


@pytest.fixture
def test_secret(user):
    return make_api_key(user, scopes=RATES, livemode=False)[1]


@pytest.fixture
def rates(client, live_secret):
    """GET /v1/rates with ``to`` (omitted when None) and a live key holding rates:read."""

    def get(to=None, secret=None, **extra):
        query = {} if to is None else {"to": to}
        return client.get("/v1/rates", query, HTTP_AUTHORIZATION=f"Bearer {secret or live_secret}", **extra)

    return get
