import pytest
from rest_framework.test import APIClient

from tests.browser import service  # noqa: F401  (the live-server fixture of the browser tests)
from tests.support.credentials import cached_key_secret
from tests.support.factories import UserFactory, make_api_key
from tests.support.local_services import dns, on_redis, receiver, redis_server  # noqa: F401  (shared by the folders)
from tests.support.mcp import install_fake_tokens
from tests.support.openapi import openapi_document
from tests.support.twilio_line import clock, line, twilio  # noqa: F401  (one suite, two carriers)

# Under pytest-xdist (make test: --dist loadgroup) each group runs on one worker, so the session's
# live server (the browser tests') and gunicorn with its demo data (the end-to-end tests') start
# once, not once per worker.
LIVE_GROUPS = ("browser", "e2e")


def pytest_collection_modifyitems(config, items):
    for item in items:
        for group in LIVE_GROUPS:
            if item.get_closest_marker(group):
                item.add_marker(pytest.mark.xdist_group(group))
                break


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Every test starts with full request budgets (they outlive a test otherwise)."""
    from apps.ratelimit.testing import clear_budgets

    clear_budgets()


@pytest.fixture(autouse=True)
def _loopback_receivers(settings):
    # The tests' webhook receivers listen on loopback, as a developer's do where DEBUG turns
    # WEBHOOK_ALLOW_LOOPBACK on; the tests of the setting itself turn it off.
    settings.WEBHOOK_ALLOW_LOOPBACK = True


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # PBKDF2 at production strength costs ~1 s per user made; only the tests of
    # password storage itself would care, and Django's own tests cover that.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def store(request, monkeypatch):
    """A Redis store shared by every 'worker' of the test, so the credential cache is on."""
    from apps.ratelimit import conf
    from tests.ratelimit.redis_server import redis_store_or_skip

    shared = redis_store_or_skip(request)
    monkeypatch.setattr(conf, "get_store", lambda: shared)
    return shared


@pytest.fixture
def api():
    return APIClient()


@pytest.fixture
def user(db):
    return UserFactory(display_name="Ada Lovelace", email="ada@example.com")


@pytest.fixture
def api_key(user):
    return make_api_key(user)


@pytest.fixture
def bearer(api_key):
    _key, secret = api_key
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


@pytest.fixture
def tokens(settings):
    """The stand-in bearer resolver of /mcp's tests (tests/support/mcp.py), installed for this test."""
    return install_fake_tokens(settings)


@pytest.fixture(scope="module")
def document(django_db_blocker):
    """The OpenAPI document, fetched once per module."""
    return openapi_document(django_db_blocker)


# --- A resource app's keys: its folder's conftest.py names the scopes (``key_scopes``) ------------


@pytest.fixture
def live_secret(user, key_scopes):
    """A live API key's secret holding ``key_scopes``."""
    return make_api_key(user, scopes=key_scopes)[1]


@pytest.fixture
def test_secret(user, key_scopes):
    """A test-mode API key's secret holding ``key_scopes``."""
    return make_api_key(user, scopes=key_scopes, livemode=False)[1]


@pytest.fixture
def cached_secret(store, user, key_scopes):
    """A live API key's secret holding ``key_scopes``, already in the credential cache."""
    return cached_key_secret(user, key_scopes)


@pytest.fixture
def get(client):
    """GET a /v1 path with a bearer secret."""

    def get(path, secret, **query):
        return client.get(path, query, HTTP_AUTHORIZATION=f"Bearer {secret}")

    return get
