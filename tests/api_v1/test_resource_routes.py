"""Every /v1 resource route, found from the URL list, held to one contract (docs/spec.md 2.3, 5.9).

The routes come from the URL list and the requests from each app's own examples
(tests/<app>/routes.py; tests/support/routes.py), so a new resource app is held to every
check here with no line added to this file: its scope refuses with the RFC 6750 challenge
before any id or parameter is read, its operations are in the OpenAPI document with their
scope and errors, and its answers stay within its statement budget.
"""

import pytest
from django.test import Client

from apps.credentials.scopes import ALL_SCOPES
from tests.support.credentials import cached_key_secret
from tests.support.envelope import assert_error
from tests.support.factories import make_api_key
from tests.support.mcp import install_fake_tokens
from tests.support.openapi import openapi_document
from tests.support.routes import app_examples, examples, resource_routes
from tests.support.scopes import challenge

pytestmark = pytest.mark.django_db

ROUTES = resource_routes()
SCOPED = [route for route in ROUTES if route.scope is not None]


def ids(routes):
    return [route.route for route in routes]


def get(path, secret):
    return Client().get(path, HTTP_AUTHORIZATION=f"Bearer {secret}")


@pytest.fixture
def asked(user):
    """Every app's examples, written for ``user``."""
    return examples(user)


def paths_of(route, asked) -> list[str]:
    return [path for path in asked[route.app_label] if route.asked_by(path)]


def test_there_are_routes_to_walk():
    assert len(SCOPED) >= 5 and any(route.scope is None for route in ROUTES)


@pytest.mark.parametrize("route", ROUTES, ids=ids(ROUTES))
def test_each_route_is_among_its_apps_examples(route, asked):
    assert paths_of(route, asked), f"tests/{route.app_label}/routes.py asks nothing of {route.route}"


@pytest.mark.parametrize("livemode", [True, False])
@pytest.mark.parametrize("route", SCOPED, ids=ids(SCOPED))
def test_without_its_scope_every_request_is_refused_with_the_challenge(route, asked, user, livemode):
    # Every example, even an unknown id or a bad parameter, is refused: a caller without the
    # scope learns nothing about which ids exist.
    _key, secret = make_api_key(user, scopes=[s for s in ALL_SCOPES if s != route.scope], livemode=livemode)
    for path in paths_of(route, asked):
        response = get(path, secret)
        error = assert_error(response, 403, "insufficient_scope", type_="permission_error")
        assert route.scope in error["message"], path
        assert response["WWW-Authenticate"] == challenge(route.scope, "v1"), path


@pytest.mark.parametrize("route", SCOPED, ids=ids(SCOPED))
def test_its_scope_alone_serves_it(route, asked, user):
    _key, secret = make_api_key(user, scopes=[route.scope])
    statuses = [get(path, secret).status_code for path in paths_of(route, asked)]
    assert 200 in statuses, statuses


@pytest.mark.parametrize("route", SCOPED, ids=ids(SCOPED))
def test_an_oauth_token_for_v1_needs_the_scope_too(route, asked, user, settings):
    tokens = install_fake_tokens(settings)
    resource = "http://testserver/v1"
    without = tokens.issue(user, scopes=frozenset(ALL_SCOPES) - {route.scope}, resource=resource)
    with_it = tokens.issue(user, scopes=frozenset({route.scope}), resource=resource)
    paths = paths_of(route, asked)
    refused = get(paths[0], without)
    assert_error(refused, 403, "insufficient_scope")
    assert refused["WWW-Authenticate"] == challenge(route.scope, "v1")
    assert 200 in [get(path, with_it).status_code for path in paths]


@pytest.fixture(scope="module")
def document(django_db_blocker):
    return openapi_document(django_db_blocker)


@pytest.mark.parametrize("route", ROUTES, ids=ids(ROUTES))
def test_each_route_is_in_the_openapi_document_with_its_scope(route, document):
    operation = document["paths"][route.openapi_path]["get"]
    scopes = [] if route.scope is None else [route.scope]
    assert operation["security"] == [{"bearer": scopes}, {"oauth2": scopes}]
    assert operation["operationId"] and operation["summary"] and operation["tags"]
    for status in ("200", "400", "401", "403", "404", "429"):
        assert operation["responses"][status]["content"]["application/json"]["schema"], status
    if route.scope is not None:
        assert route.scope in operation["responses"]["403"]["description"]


@pytest.mark.parametrize("route", ROUTES, ids=ids(ROUTES))
def test_each_answer_stays_within_its_apps_statement_budget(route, asked, store, user, django_assert_max_num_queries):
    secret = cached_key_secret(user, sorted(ALL_SCOPES))
    budget = app_examples(route.app_label).MAX_STATEMENTS
    for path in paths_of(route, asked):
        with django_assert_max_num_queries(budget):
            get(path, secret)
