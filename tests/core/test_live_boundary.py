"""The request boundary over real HTTP: gunicorn in its own process, behind a trusted proxy.

The service runs as ``gunicorn config.wsgi`` (tests/e2e/servers.py) with
``TRUSTED_PROXIES=127.0.0.1``, so this test's own connection stands in for the
reverse proxy and its ``X-Forwarded-For`` is believed. Covers what only real
HTTP shows: forwarded addresses with ports (the per-address budgets they key),
``Cache-Control`` on authenticated responses, the /mcp preflight, and Django's
own 400s answered in the contract's shape.
"""

import http.client
import json
from pathlib import Path

import pytest

from tests.e2e.servers import LiveServer

pytestmark = pytest.mark.e2e

EMAIL = "live@example.com"
METADATA = "/.well-known/oauth-protected-resource/v1"


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    directory = tmp_path_factory.mktemp("boundary")
    server = LiveServer(
        directory,
        ca_file=Path("/nonexistent-ca.pem"),  # no client metadata document is fetched here
        email=EMAIL,
        display_name="Live",
        password="live-correct-horse-battery",
    )
    server.env["TRUSTED_PROXIES"] = "127.0.0.1"
    with server:
        made = server.manage("createapikey", "--email", EMAIL)
        server.api_key = made.stdout.strip()
        yield server


def call(live, method, path, *, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", live.port, timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def remaining(headers) -> int:
    fields = dict(part.strip().split("=") for part in headers["ratelimit"].split(","))
    return int(fields["remaining"])


# --- Forwarded addresses -----------------------------------------------------------------


def metadata_remaining(live, forwarded: str) -> int:
    status, headers, _ = call(live, "GET", METADATA, headers={"X-Forwarded-For": forwarded})
    assert status == 200
    return remaining(headers)


def test_forwarded_entries_with_ports_key_their_own_address(live):
    # The metadata budget (300/min per address) shows which address a request was counted for.
    assert metadata_remaining(live, "203.0.113.7:5678") == 299
    assert metadata_remaining(live, "203.0.113.7") == 298  # the same client, without a port
    assert metadata_remaining(live, "203.0.113.8:5678") == 299  # another client: not one shared bucket
    assert metadata_remaining(live, "[2001:db8:7::1]:443") == 299
    assert metadata_remaining(live, "2001:db8:7::2") == 298  # the same IPv6 /64


def test_the_client_is_the_rightmost_untrusted_entry(live):
    assert metadata_remaining(live, "198.51.100.50") == 299
    # A spoofed entry on the left is ignored; the nearest untrusted hop is the client.
    assert metadata_remaining(live, "198.51.100.66, 198.51.100.50") == 298
    assert metadata_remaining(live, "10.0.0.9, 198.51.100.50:1234, 127.0.0.1") == 297


# --- Cache-Control on authenticated responses --------------------------------------------


def test_authenticated_v1_responses_are_never_stored(live):
    status, headers, body = call(live, "GET", "/v1/me", headers={"Authorization": f"Bearer {live.api_key}"})
    assert status == 200, body
    assert json.loads(body)["email"] == EMAIL
    assert "no-store" in headers["cache-control"]


def test_mcp_responses_are_never_stored(live):
    status, headers, _ = call(
        live,
        "POST",
        "/mcp",
        body=b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}',
        headers={"Content-Type": "application/json", "Authorization": "Bearer sat_unknown"},
    )
    assert status == 401
    assert "no-store" in headers["cache-control"]


# --- The /mcp preflight --------------------------------------------------------------------


def preflight(live, origin):
    return call(
        live,
        "OPTIONS",
        "/mcp",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization",
        },
    )


def test_mcp_preflight_from_a_refused_origin_is_not_allowed(live):
    status, headers, _ = preflight(live, "https://evil.example")
    assert status == 403
    assert "access-control-allow-origin" not in headers


def test_mcp_preflight_from_the_service_origin_is_allowed(live):
    status, headers, _ = preflight(live, live.url)
    assert status == 200
    assert headers["access-control-allow-origin"] in ("*", live.url)


# --- Django's own 400s ---------------------------------------------------------------------

TOO_MANY = "&".join(["a"] * 1001)  # 1,001 fields in a request line gunicorn accepts


def assert_raw_envelope(status, headers, body, code, expected_status=400):
    assert status == expected_status, body
    assert headers["content-type"] == "application/json"
    error = json.loads(body)["error"]
    assert error["code"] == code
    assert error["request_id"] == headers["request-id"]
    assert "no-store" in headers["cache-control"]


def assert_oauth(status, headers, body, code):
    assert status == 400, body
    assert headers["content-type"] == "application/json"
    assert json.loads(body)["error"] == code
    assert headers["request-id"].startswith("req_")


def test_too_many_query_parameters_on_v1(live):
    response = call(live, "GET", f"/v1/me?{TOO_MANY}", headers={"Authorization": f"Bearer {live.api_key}"})
    assert_raw_envelope(*response, "invalid_request")


def test_too_many_query_parameters_on_mcp(live):
    response = call(live, "POST", f"/mcp?{TOO_MANY}", body=b"{}", headers={"Content-Type": "application/json"})
    assert_raw_envelope(*response, "invalid_request")


def test_too_many_form_fields_on_token(live):
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    assert_oauth(*call(live, "POST", "/oauth/token", body=TOO_MANY.encode(), headers=form), "invalid_request")


def test_a_revoke_body_over_the_cap(live):
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    body = b"token=" + b"a" * (256 * 1024)
    assert_oauth(*call(live, "POST", "/oauth/revoke", body=body, headers=form), "invalid_request")


def test_register_with_too_many_query_parameters(live):
    response = call(
        live, "POST", f"/oauth/register?{TOO_MANY}", body=b"{}", headers={"Content-Type": "application/json"}
    )
    assert_oauth(*response, "invalid_client_metadata")


def test_a_lone_surrogate_in_a_registration(live):
    body = b'{"client_name": "\\ud800", "redirect_uris": ["https://client.example.com/cb"]}'
    response = call(live, "POST", "/oauth/register", body=body, headers={"Content-Type": "application/json"})
    assert_oauth(*response, "invalid_client_metadata")
