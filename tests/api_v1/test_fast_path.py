"""Every /v1 read answers alike on the fast path and through DRF's request cycle (apps/api_v1/fastpath.py).

Each request below is asked both ways, the fast path turned off for the second,
and the answers compared: status, body and every header but the per-request ones
(tests/support/fast_path.py). The requests are every resource app's own examples of
its routes (tests/<app>/routes.py, found from the URL list by tests/support/routes.py),
so a new resource app is held to it too.
"""

import pytest

from apps.api_v1.bases import ResourceApi
from apps.apikeys.services import apikey_revoke
from apps.credentials.scopes import ALL_SCOPES
from apps.credentials.session import SessionOnlyMixin
from tests.support.factories import UserFactory, make_api_key
from tests.support.fast_path import alike, answer
from tests.support.routes import every_example, resource_routes

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_budgets(settings):
    # Each test asks dozens of requests twice, past one key's reads a minute; that both paths
    # spend and refuse alike is tests/accounts/test_me_fast_path.py's test_a_spent_budget.
    settings.RATELIMIT = {**settings.RATELIMIT, "ENABLED": False}


@pytest.fixture
def account():
    """A user with rows of every resource app, and every app's examples of its routes."""
    user = UserFactory()
    return user, every_example(user)


def test_every_read_with_every_scope(account):
    user, requests = account
    _key, secret = make_api_key(user, scopes=sorted(ALL_SCOPES))
    statuses = {path: alike(path, secret)[0] for path in requests}
    assert {200, 400, 404} <= set(statuses.values())


@pytest.mark.parametrize("scope", sorted({route.scope for route in resource_routes()} - {None}))
def test_every_read_with_one_scope(account, scope):
    user, requests = account
    _key, secret = make_api_key(user, scopes=[scope])
    statuses = {path: alike(path, secret)[0] for path in requests}
    assert 403 in statuses.values() and 200 in statuses.values()


def test_every_read_in_test_mode_and_with_a_pinned_version(account):
    user, requests = account
    _key, secret = make_api_key(user, scopes=sorted(ALL_SCOPES), livemode=False)
    for route in resource_routes():
        path = next(path for path in requests if route.asked_by(path))
        alike(path, secret)
        alike(path, secret, HTTP_SERVICE_VERSION="1999-01-01")


@pytest.mark.parametrize(
    "secret", ["sk_live_" + "A" * 43, "sat_" + "B" * 43, "nothing-we-issue", "revoked", "wrong-address"]
)
def test_credentials_that_do_not_serve(account, secret):
    user, requests = account
    if secret == "revoked":
        key, secret = make_api_key(user, scopes=sorted(ALL_SCOPES))
        apikey_revoke(key=key)
    elif secret == "wrong-address":
        _key, secret = make_api_key(user, scopes=sorted(ALL_SCOPES), ip_allowlist=["203.0.113.0/24"])
    for path in requests[::5]:
        status, body, _headers = alike(path, secret)
        assert status in (401, 403) and "error" in body


def test_requests_the_fast_path_leaves_to_drf(account):
    user, _requests = account
    _key, secret = make_api_key(user, scopes=sorted(ALL_SCOPES))
    assert answer("/v1/balance?format=json", secret, via_drf=False) == answer(
        "/v1/balance?format=json", secret, via_drf=True
    )
    assert answer("/v1/balance", secret, via_drf=False, HTTP_ACCEPT="text/html")[0] == 406


def test_every_resource_route_has_the_fast_path_in_front():
    for route in resource_routes():
        assert getattr(route.callback, "fast_path", False), route.route


def test_a_view_that_authenticates_otherwise_keeps_drfs_cycle():
    class SessionOnly(SessionOnlyMixin, ResourceApi):
        required_scope = None

        def get(self, request):
            raise AssertionError("not reached in this test")

    class OwnPermissions(ResourceApi):
        required_scope = None

        def check_permissions(self, request):
            raise AssertionError("not reached in this test")

        def get(self, request):
            raise AssertionError("not reached in this test")

    assert not getattr(SessionOnly.as_view(), "fast_path", False)
    assert not getattr(OwnPermissions.as_view(), "fast_path", False)
    assert getattr(
        ResourceApi.as_view.__func__(
            type("Plain", (ResourceApi,), {"required_scope": None, "get": lambda self, request: None})
        ),
        "fast_path",
        False,
    )
