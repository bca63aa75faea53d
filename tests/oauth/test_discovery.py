"""Discovery documents (docs/spec.md 2.8, 4.2) and CORS on the public endpoints."""

import re
from datetime import UTC, datetime

import pytest
from django.test import override_settings

from apps.credentials.scopes import ALL_SCOPES

BASE = "http://testserver"
AS_METADATA = "/.well-known/oauth-authorization-server"
PRM_V1 = "/.well-known/oauth-protected-resource/v1"
PRM_MCP = "/.well-known/oauth-protected-resource/mcp"
SECURITY_TXT = "/.well-known/security.txt"

SPEC_SCOPES = [
    "rates:read",
    "credits:read",
    "calls:read",
    "calls:place",
    "contacts:read",
    "numbers:read",
    "messages:read",
    "messages:history",
    "transcripts:read",
    "webhooks:manage",
]


@pytest.fixture
def as_metadata(client):
    response = client.get(AS_METADATA)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    return response.json()


class TestAuthorizationServerMetadata:
    def test_issuer_is_exactly_the_base_url(self, as_metadata):
        assert as_metadata["issuer"] == BASE

    def test_issuer_ignores_the_host_header(self, client):
        body = client.get(AS_METADATA, HTTP_HOST="localhost").json()
        assert body["issuer"] == BASE
        assert body["token_endpoint"] == f"{BASE}/oauth/token"

    @override_settings(BASE_URL="https://api.example.test")
    def test_every_address_follows_base_url(self, client):
        body = client.get(AS_METADATA, HTTP_HOST="localhost").json()
        assert body["issuer"] == "https://api.example.test"
        assert body["authorization_endpoint"] == "https://api.example.test/oauth/authorize"

    def test_every_endpoint(self, as_metadata):
        assert as_metadata["authorization_endpoint"] == f"{BASE}/oauth/authorize"
        assert as_metadata["token_endpoint"] == f"{BASE}/oauth/token"
        assert as_metadata["revocation_endpoint"] == f"{BASE}/oauth/revoke"
        assert as_metadata["registration_endpoint"] == f"{BASE}/oauth/register"

    def test_all_ten_scopes(self, as_metadata):
        assert as_metadata["scopes_supported"] == SPEC_SCOPES
        assert list(ALL_SCOPES) == SPEC_SCOPES

    def test_response_type_code_only(self, as_metadata):
        assert as_metadata["response_types_supported"] == ["code"]

    def test_both_grants_only(self, as_metadata):
        assert as_metadata["grant_types_supported"] == ["authorization_code", "refresh_token"]

    def test_pkce_s256_only(self, as_metadata):
        assert as_metadata["code_challenge_methods_supported"] == ["S256"]

    def test_auth_method_none_only(self, as_metadata):
        assert as_metadata["token_endpoint_auth_methods_supported"] == ["none"]
        assert as_metadata["revocation_endpoint_auth_methods_supported"] == ["none"]

    def test_client_id_metadata_documents_supported(self, as_metadata):
        assert as_metadata["client_id_metadata_document_supported"] is True

    def test_iss_parameter_supported(self, as_metadata):
        assert as_metadata["authorization_response_iss_parameter_supported"] is True

    def test_nothing_advertised_that_does_not_exist(self, as_metadata):
        for absent in ("introspection_endpoint", "jwks_uri", "userinfo_endpoint", "device_authorization_endpoint"):
            assert absent not in as_metadata
        assert "plain" not in as_metadata["code_challenge_methods_supported"]

    def test_cacheable(self, client):
        assert client.get(AS_METADATA)["Cache-Control"] == "public, max-age=3600"

    def test_post_is_refused(self, client):
        assert client.post(AS_METADATA).status_code == 405


@pytest.mark.parametrize(("path", "resource"), [(PRM_V1, f"{BASE}/v1"), (PRM_MCP, f"{BASE}/mcp")])
class TestProtectedResourceMetadata:
    def test_resource_is_exactly_the_resource_url(self, client, path, resource):
        assert client.get(path).json()["resource"] == resource

    def test_resource_ignores_the_host_header(self, client, path, resource):
        assert client.get(path, HTTP_HOST="localhost").json()["resource"] == resource

    def test_authorization_servers_contain_base_url(self, client, path, resource):
        assert client.get(path).json()["authorization_servers"] == [BASE]

    def test_all_ten_scopes(self, client, path, resource):
        assert client.get(path).json()["scopes_supported"] == SPEC_SCOPES

    def test_bearer_in_header_only(self, client, path, resource):
        assert client.get(path).json()["bearer_methods_supported"] == ["header"]

    def test_resource_name_is_human_readable(self, client, path, resource):
        name = client.get(path).json()["resource_name"]
        assert isinstance(name, str) and name.strip()

    def test_resource_documentation_is_the_mcp_reference(self, client, path, resource):
        assert client.get(path).json()["resource_documentation"] == "https://docs.example.test/mcp"

    def test_exact_field_set_and_caching(self, client, path, resource):
        response = client.get(path)
        assert response["Content-Type"] == "application/json"
        assert response["Cache-Control"] == "public, max-age=3600"
        assert set(response.json()) == {
            "resource",
            "authorization_servers",
            "scopes_supported",
            "bearer_methods_supported",
            "resource_name",
            "resource_documentation",
        }


def test_resource_documents_are_those_named_in_www_authenticate(client):
    from apps.credentials.challenges import www_authenticate

    for path in ("v1", "mcp"):
        header = www_authenticate(path)
        url = re.search(r'resource_metadata="([^"]+)"', header).group(1)
        assert url.startswith(BASE)
        assert client.get(url.removeprefix(BASE)).status_code == 200


def test_other_protected_resource_paths_do_not_exist(client):
    assert client.get("/.well-known/oauth-protected-resource").status_code == 404
    assert client.get("/.well-known/oauth-protected-resource/admin").status_code == 404


class TestSecurityTxt:
    def test_rfc9116_fields(self, client):
        response = client.get(SECURITY_TXT)
        assert response.status_code == 200
        assert response["Content-Type"] == "text/plain; charset=utf-8"
        fields = dict(line.split(": ", 1) for line in response.content.decode().strip().splitlines())
        assert fields["Contact"] == "mailto:security@testserver"
        assert fields["Canonical"] == f"{BASE}/.well-known/security.txt"
        assert fields["Preferred-Languages"] == "en"
        expires = datetime.strptime(fields["Expires"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
        days_ahead = (expires - datetime.now(UTC)).days
        assert 0 < days_ahead < 365

    @override_settings(SECURITY_CONTACT="https://example.test/security")
    def test_contact_from_settings(self, client):
        assert "Contact: https://example.test/security\n" in client.get(SECURITY_TXT).content.decode()


PUBLIC_ENDPOINTS = [
    (AS_METADATA, "GET"),
    (PRM_V1, "GET"),
    (PRM_MCP, "GET"),
    (SECURITY_TXT, "GET"),
    ("/oauth/token", "POST"),
    ("/oauth/revoke", "POST"),
    ("/oauth/register", "POST"),
    ("/v1/me", "GET"),
    ("/mcp", "POST"),
]

SPEC_EXPOSED_HEADERS = {
    "ratelimit",
    "ratelimit-policy",
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "retry-after",
    "request-id",
    "www-authenticate",
    "idempotent-replayed",
    "deprecation",
    "sunset",
}


@pytest.mark.parametrize(("path", "method"), PUBLIC_ENDPOINTS)
def test_cors_preflight_on_each_public_endpoint(client, settings, path, method):
    # /mcp answers only the origins its Origin check admits (tests/core/test_cors.py).
    settings.MCP_ALLOWED_ORIGINS = ["https://assistant.example"]
    response = client.options(
        path,
        HTTP_ORIGIN="https://assistant.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD=method,
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type",
    )
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    assert method in response["Access-Control-Allow-Methods"]
    allowed_headers = {h.strip() for h in response["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type"} <= allowed_headers
    # Never with credentials: a page elsewhere cannot ride the user's cookies.
    assert "Access-Control-Allow-Credentials" not in response


@pytest.mark.parametrize("path", [AS_METADATA, PRM_V1, PRM_MCP, SECURITY_TXT])
def test_cors_on_discovery_responses_exposes_spec_headers(client, path):
    response = client.get(path, HTTP_ORIGIN="https://assistant.example")
    assert response["Access-Control-Allow-Origin"] == "*"
    exposed = {h.strip().lower() for h in response["Access-Control-Expose-Headers"].split(",")}
    assert exposed >= SPEC_EXPOSED_HEADERS


@pytest.mark.django_db
def test_cors_on_register_response(client):
    response = client.post(
        "/oauth/register",
        data={"redirect_uris": ["http://127.0.0.1/callback"]},
        content_type="application/json",
        HTTP_ORIGIN="https://assistant.example",
    )
    assert response.status_code == 201
    assert response["Access-Control-Allow-Origin"] == "*"
    exposed = {h.strip().lower() for h in response["Access-Control-Expose-Headers"].split(",")}
    assert exposed >= SPEC_EXPOSED_HEADERS


@pytest.mark.parametrize("path", ["/oauth/authorize", "/admin/", "/login"])
def test_browser_pages_are_not_cross_origin(client, path):
    response = client.options(path, HTTP_ORIGIN="https://assistant.example", HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET")
    assert "Access-Control-Allow-Origin" not in response


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/oauth/token", "/oauth/revoke"])
def test_cors_on_token_and_revoke_responses(client, path):
    response = client.post(
        path, data="grant_type=bogus", content_type="application/x-www-form-urlencoded", HTTP_ORIGIN="https://a.example"
    )
    assert response.status_code == 400
    assert response["Access-Control-Allow-Origin"] == "*"
    exposed = {h.strip().lower() for h in response["Access-Control-Expose-Headers"].split(",")}
    assert exposed >= SPEC_EXPOSED_HEADERS


@pytest.mark.parametrize("path", [AS_METADATA, PRM_V1, PRM_MCP, SECURITY_TXT])
def test_head_is_answered(client, path):
    response = client.head(path)
    assert response.status_code == 200
    assert response.content == b""
