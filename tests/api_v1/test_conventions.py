"""The general /v1 rules of docs/spec.md 4 and 4.1: routes, methods, media types, sizes, bodies."""

import json

import pytest

from tests.support.envelope import assert_error

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/v1", "/v1/", "/v1/nowhere", "/v1/me/", "/v1/me/extra", "/v1/calls/", "/v1/quotes/"])
@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_unknown_paths_are_route_not_found_never_a_redirect(api, path, method):
    response = getattr(api, method)(path)
    error = assert_error(response, 404, "route_not_found", type_="not_found_error")
    assert "http://testserver/v1/openapi.json" in error["message"]
    assert response["Service-Version"] == "2026-10-01"


def test_the_apis_root_says_where_the_reference_is(api, settings):
    """`make run` prints {BASE_URL}/v1: opened, it is the contract's 404 (docs/spec.md 4.1), and its message
    names the OpenAPI document and the reference, as a first-class API's root does."""
    response = api.get("/v1")
    assert_error(response, 404, "route_not_found")
    message = response.json()["error"]["message"]
    assert f"{settings.BASE_URL}/v1/openapi.json" in message and f"{settings.DOCS_URL}/api" in message


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_wrong_method_on_a_known_path(api, bearer, method):
    response = getattr(api, method)("/v1/me", **bearer)
    assert_error(response, 405, "method_not_allowed", type_="invalid_request_error")
    assert "GET" in response["Allow"]


def test_accept_excluding_json_is_not_acceptable(api, bearer):
    response = api.get("/v1/me", HTTP_ACCEPT="text/html", **bearer)
    assert_error(response, 406, "not_acceptable")


@pytest.mark.parametrize("accept", ["application/json", "*/*", "application/*", "text/html, application/json;q=0.5"])
def test_accept_allowing_json_is_served(api, bearer, accept):
    assert api.get("/v1/me", HTTP_ACCEPT=accept, **bearer).status_code == 200


@pytest.mark.parametrize("path", ["/v1/me", "/v1/calls", "/v1/balance", "/v1/rates?to=%2B4915112345678"])
@pytest.mark.parametrize("value", ["xml", "api", "json"])
def test_a_format_query_parameter_selects_nothing_and_never_answers_before_the_credential(api, path, value):
    """JSON is the only representation; ``format`` is an unknown query parameter like any other."""
    separator = "&" if "?" in path else "?"
    response = api.get(f"{path}{separator}format={value}")
    assert_error(response, 401, "invalid_token", type_="authentication_error")
    assert response["WWW-Authenticate"] == (
        'Bearer error="invalid_token", resource_metadata="http://testserver/.well-known/oauth-protected-resource/v1"'
    )


@pytest.mark.parametrize("value", ["xml", "api", "json"])
def test_a_format_query_parameter_is_ignored_with_a_credential(api, bearer, value):
    response = api.get(f"/v1/me?format={value}", **bearer)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json()["object"] == "user"


@pytest.mark.urls("tests.api_v1.urls_echo")
class TestPostBodies:
    def test_valid_json_is_accepted(self, api, bearer):
        response = api.post("/v1/_echo", data=json.dumps({"name": "ok"}), content_type="application/json", **bearer)
        assert response.status_code == 201

    def test_wrong_content_type_is_unsupported_media_type(self, api, bearer):
        response = api.post("/v1/_echo", data="name=ok", content_type="application/x-www-form-urlencoded", **bearer)
        assert_error(response, 415, "unsupported_media_type")

    @pytest.mark.parametrize("body", ["{not json", "", "[1,", '{"name": "ok"'])
    def test_unreadable_json_is_invalid_body(self, api, bearer, body):
        response = api.post("/v1/_echo", data=body, content_type="application/json", **bearer)
        if body == "":
            # An empty body parses as no fields: a validation error names the field.
            assert_error(response, 400, "invalid_request", param="name")
        else:
            assert_error(response, 400, "invalid_body")

    def test_validation_failure_names_the_param(self, api, bearer):
        response = api.post(
            "/v1/_echo", data=json.dumps({"name": "far too long"}), content_type="application/json", **bearer
        )
        assert_error(response, 400, "invalid_request", param="name")

    def test_body_over_256_kb_is_request_too_large(self, api, bearer):
        body = json.dumps({"name": "x" * (256 * 1024)})
        response = api.post("/v1/_echo", data=body, content_type="application/json", **bearer)
        assert_error(response, 413, "request_too_large")

    def test_body_of_exactly_256_kb_is_not_refused_for_size(self, api, bearer):
        prefix, suffix = '{"name": "', '"}'
        body = prefix + "x" * (256 * 1024 - len(prefix) - len(suffix)) + suffix
        assert len(body) == 256 * 1024
        response = api.post("/v1/_echo", data=body, content_type="application/json", **bearer)
        assert_error(response, 400, "invalid_request", param="name")

    def test_token_in_query_on_post(self, api, bearer):
        response = api.post("/v1/_echo?access_token=x", data="{}", content_type="application/json", **bearer)
        assert_error(response, 400, "token_in_query", param="access_token")


def test_error_responses_are_json_and_not_cached(api):
    response = api.get("/v1/me")
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"


def test_cors_exposes_the_headers_clients_need(api, bearer):
    response = api.get("/v1/me", HTTP_ORIGIN="https://app.example", **bearer)
    assert response["Access-Control-Allow-Origin"] == "*"
    exposed = {h.strip().lower() for h in response["Access-Control-Expose-Headers"].split(",")}
    for header in [
        "RateLimit",
        "RateLimit-Policy",
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
        "Retry-After",
        "Request-Id",
        "WWW-Authenticate",
        "Idempotent-Replayed",
        "Deprecation",
        "Sunset",
    ]:
        assert header.lower() in exposed
    assert "Access-Control-Allow-Credentials" not in response


def test_cors_preflight_on_v1(api):
    response = api.options(
        "/v1/me",
        HTTP_ORIGIN="https://app.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, service-version",
    )
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    allowed = response["Access-Control-Allow-Headers"].lower()
    assert "authorization" in allowed and "service-version" in allowed


@pytest.mark.urls("tests.api_v1.urls_echo")
def test_deeply_nested_json_is_invalid_body_on_every_v1_post(api, bearer):
    body = "[" * 100_000 + "]" * 100_000
    response = api.post("/v1/_echo", data=body, content_type="application/json", **bearer)
    assert_error(response, 400, "invalid_body")
