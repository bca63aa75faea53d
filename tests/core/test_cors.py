"""CORS on /mcp agrees with the MCP transport's Origin check (apps/mcp_bridge/views.py).

A browser page may drive /mcp only from an allowed origin (the DNS-rebinding
guard): BASE_URL's and APP_URL's origins, or MCP_ALLOWED_ORIGINS. A preflight
from any other origin must not be told "allowed" (``Access-Control-Allow-Origin: *``)
only for the real request to be refused with 403. The other machine paths keep
answering any origin (docs/design.md: CORS on /v1, /oauth/token, ... for any origin).
"""

import pytest
from corsheaders.middleware import CorsMiddleware as StockCorsMiddleware
from django.http import HttpResponse
from django.test import Client, RequestFactory

from apps.core.middleware import CorsMiddleware
from tests.support.mcp import McpClient
from tests.support.oauth import MCP, make_client, tokens_for

pytestmark = pytest.mark.django_db

EVIL = "https://evil.example"
TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


def preflight(path: str, origin: str):
    return Client().options(
        path,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type",
        },
    )


def test_preflight_from_a_refused_origin_is_not_allowed():
    response = preflight("/mcp", EVIL)
    assert "Access-Control-Allow-Origin" not in response
    assert "Access-Control-Allow-Methods" not in response
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "forbidden"


def test_preflight_from_the_service_origin_is_allowed():
    response = preflight("/mcp", "http://testserver")
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] in ("*", "http://testserver")
    assert "POST" in response["Access-Control-Allow-Methods"]
    assert "authorization" in response["Access-Control-Allow-Headers"]


def test_preflight_follows_mcp_allowed_origins(settings):
    settings.MCP_ALLOWED_ORIGINS = ["https://assistant.example"]
    allowed = preflight("/mcp", "https://assistant.example")
    assert allowed.status_code == 200
    assert allowed["Access-Control-Allow-Origin"] in ("*", "https://assistant.example")
    assert "Access-Control-Allow-Origin" not in preflight("/mcp", "http://testserver")
    assert "Access-Control-Allow-Origin" not in preflight("/mcp", EVIL)


def test_a_trailing_slash_origin_is_the_same_origin():
    # check_origin ignores one trailing slash; so does the preflight.
    assert preflight("/mcp", "http://testserver/").status_code == 200


def tools_list_from(origin: str, user):
    """A tools/list of ``user``'s assistant, from a page of ``origin``."""
    token = tokens_for(user, make_client(), resource=MCP)["access_token"]
    return McpClient(token).post(TOOLS_LIST, headers={"Accept": "application/json", "Origin": origin})


def test_requests_from_a_refused_origin_get_no_cors_headers(user):
    response = tools_list_from(EVIL, user)
    assert response.status_code == 403
    assert "Access-Control-Allow-Origin" not in response


def test_requests_from_an_allowed_origin_can_read_the_answer(user):
    response = tools_list_from("http://testserver", user)
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] in ("*", "http://testserver")
    assert "Request-Id" in response["Access-Control-Expose-Headers"]


def test_clients_without_an_origin_are_not_browsers():
    response = Client().post("/mcp", "{}", content_type="application/json")
    assert response.status_code == 401  # the Origin check does not apply; authentication does


@pytest.mark.parametrize("path", ["/v1/me", "/oauth/token", "/oauth/revoke", "/oauth/register"])
def test_other_machine_paths_still_answer_any_origin(path):
    response = preflight(path, EVIL)
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"


@pytest.mark.parametrize("path", ["/v1/me", "/v1/balance", "/mcp", "/oauth/token", "/", "/docs", "/admin/login/"])
@pytest.mark.parametrize("origin", [None, "https://app.example", EVIL, ""])
@pytest.mark.parametrize("method", ["get", "post", "options"])
def test_the_service_middleware_answers_as_django_cors_headers_does(path, origin, method):
    """apps.core.middleware.CorsMiddleware skips request.headers when no Origin is sent; every header
    it leaves on a response is what django-cors-headers' own middleware leaves."""
    headers = {} if origin is None else {"Origin": origin}
    if method == "options":
        headers["Access-Control-Request-Method"] = "POST"
    request = getattr(RequestFactory(), method)(path, headers=headers)

    def answer(middleware_class):
        response = middleware_class(lambda r: HttpResponse("ok"))(request)
        return response.status_code, dict(response.items())

    assert answer(CorsMiddleware) == answer(StockCorsMiddleware)
