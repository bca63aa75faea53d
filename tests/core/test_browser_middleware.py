"""Sessions, request.user and messages run where a browser can call, not for API callers of /v1 and /mcp."""

import pytest
from django.core.management import call_command
from django.test import Client

from apps.core.middleware import is_bearer_only
from tests.support.oauth import signed_in

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("path", "bearer_only"),
    [
        ("/v1/me", True),
        ("/v1/openapi.json", True),
        ("/v1/anything/else", True),
        ("/v1", True),
        ("/mcp", True),
        ("/v1/api-keys", True),  # a caller without a session cookie has no session to load
        ("/mcp/", False),
        ("/v1x", False),
        ("/login", False),
        ("/oauth/authorize", False),
        ("/api/oauth/connections", False),
        ("/settings/api-keys", False),
        ("/admin/", False),
    ],
)
def test_which_requests_are_bearer_only(rf, settings, path, bearer_only):
    assert is_bearer_only(rf.get(path)) is bearer_only
    with_session = rf.get(path)
    with_session.COOKIES[settings.SESSION_COOKIE_NAME] = "abc"
    assert is_bearer_only(with_session) is False  # a browser gets every middleware, on every path


def test_an_api_client_gets_no_cookie_and_no_vary_cookie(bearer, api):
    response = Client().get("/v1/me", **bearer)
    assert response.status_code == 200
    assert not response.cookies
    assert "Cookie" not in response.get("Vary", "")


def test_a_browser_with_a_session_still_reaches_v1_with_a_bearer(user, bearer):
    browser = signed_in(user)
    assert "sessionid" in browser.cookies
    assert browser.get("/v1/me", **bearer).status_code == 200


def test_the_dashboards_key_endpoints_still_use_the_session(user):
    browser = signed_in(user)
    assert browser.get("/v1/api-keys").status_code == 200
    assert Client().get("/v1/api-keys").status_code == 401


def test_pages_still_get_their_csrf_cookie():
    response = Client().get("/login")
    assert response.status_code == 200
    assert "csrftoken" in response.cookies


def test_django_still_finds_the_middleware_the_admin_requires():
    call_command("check", fail_level="ERROR")
