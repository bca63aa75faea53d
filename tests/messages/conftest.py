import pytest

from tests.support.factories import make_api_key

SCOPES = ["messages:read"]


@pytest.fixture
def live_secret(user):
    return make_api_key(user, scopes=SCOPES)[1]


@pytest.fixture
def history_secret(user):
    return make_api_key(user, scopes=[*SCOPES, "messages:history"])[1]


@pytest.fixture
def test_secret(user):
    return make_api_key(user, scopes=SCOPES, livemode=False)[1]


@pytest.fixture
def get(client):
    """GET a /v1 path with a bearer secret."""

    def get(path, secret, **query):
        return client.get(path, query, HTTP_AUTHORIZATION=f"Bearer {secret}")

    return get
