"""One guard for the text a request brings in (apps/core/inputs.py).

No field of the service holds a control character (C0, DEL, C1) or an unpaired
UTF-16 surrogate: a JSON ``"\\ud800"`` cannot even be encoded as UTF-8, so it
used to reach the database and fail there (a 500 on ``POST /v1/api-keys`` and
on ``POST /oauth/register``). The guard refuses such text where it enters (JSON
bodies, form bodies, query parameters, path ids) with the surface's own error
for the field, before the view runs, so nothing is written.
"""

import json

import pytest
from django.test import Client

from apps.api_v1.models import IdempotencyRecord
from apps.apikeys.models import ApiKey
from apps.audit.models import AuditEvent
from apps.core.inputs import forbidden_text, json_may_hold_forbidden_text
from apps.oauth.models import Application, ConsentTransaction
from tests.support.envelope import assert_error
from tests.support.oauth import FORM, MCP, make_client, pkce, signed_in, start, tokens_for

pytestmark = pytest.mark.django_db

# As a client's JSON encoder writes them: escapes, since a lone surrogate has no UTF-8 form.
LONE_SURROGATES = ["\\ud800", "a\\udfffb", "\\udc00\\ud800", "\\ud83d"]
CONTROLS = ["\\u0000", "a\\u0001b", "\\u001f", "\\u007f", "\\u0085", "\\u009f", "line\\nbreak", "\\t"]
BAD_JSON_STRINGS = LONE_SURROGATES + CONTROLS


def raw_json(template: str, bad: str) -> str:
    """``template`` with ``BAD`` replaced by a JSON string literal holding ``bad`` verbatim."""
    return template.replace("BAD", f'"{bad}"')


@pytest.fixture
def dashboard(user):
    client = Client()
    client.force_login(user)
    return client


def counts():
    return (ApiKey.objects.count(), IdempotencyRecord.objects.count(), AuditEvent.objects.count())


# --- POST /v1/api-keys: the name's own code ---------------------------------------------------


@pytest.mark.parametrize("bad", BAD_JSON_STRINGS)
def test_api_key_name_is_invalid_name_and_nothing_is_written(dashboard, bad):
    before = counts()
    response = dashboard.post(
        "/v1/api-keys",
        raw_json('{"name": BAD, "scopes": ["rates:read"]}', bad),
        content_type="application/json",
        headers={"Idempotency-Key": "0b5ed3a4-4f6e-4a43-9c2a-8b1f5d8f0e11"},
    )
    error = assert_error(response, 400, "invalid_name", param="name")
    assert "\\ud" not in json.dumps(error) and "\x00" not in error["message"]
    assert counts() == before


def test_a_surrogate_pair_is_a_character_not_a_surrogate(dashboard):
    # "\ud83d\ude00" is one emoji once decoded; names may hold it.
    response = dashboard.post(
        "/v1/api-keys", '{"name": "deploy \\ud83d\\ude00", "scopes": ["rates:read"]}', content_type="application/json"
    )
    assert response.status_code == 201, response.content
    assert response.json()["name"] == "deploy \U0001f600"


@pytest.mark.parametrize(
    ("template", "param"),
    [
        ('{"name": "k", "scopes": [BAD]}', "scopes"),
        ('{"name": "k", "scopes": ["rates:read"], "ip_allowlist": ["10.0.0.1", BAD]}', "ip_allowlist"),
        ('{"name": "k", "scopes": ["rates:read"], "extra": {"deep": [BAD]}}', "extra"),
    ],
)
@pytest.mark.parametrize("bad", ["\\ud800", "\\u0000"])
def test_other_api_key_fields_are_invalid_request_with_param(dashboard, template, param, bad):
    before = counts()
    response = dashboard.post("/v1/api-keys", raw_json(template, bad), content_type="application/json")
    assert_error(response, 400, "invalid_request", param=param)
    assert counts() == before


@pytest.mark.parametrize("bad", ["\\ud800", "\\u0000"])
def test_a_bad_field_name_is_refused_without_echoing_it(dashboard, bad):
    response = dashboard.post(
        "/v1/api-keys", '{"name": "k", "scopes": ["rates:read"], "' + bad + '": 1}', content_type="application/json"
    )
    assert_error(response, 400, "invalid_request", param=None)


def test_query_parameters(dashboard):
    # The list parameters keep their own codes (docs/spec.md 7.2); any other is invalid_request.
    assert_error(dashboard.get("/v1/api-keys?starting_after=%00"), 400, "invalid_cursor", param="starting_after")
    assert_error(dashboard.get("/v1/api-keys?ending_before=key_%1B"), 400, "invalid_cursor", param="ending_before")
    assert_error(dashboard.get("/v1/api-keys?limit=1%0A"), 400, "invalid_limit", param="limit")
    assert_error(dashboard.get("/v1/api-keys?expand=%7F"), 400, "invalid_request", param="expand")
    assert_error(dashboard.get("/v1/api-keys?%C2%85=1"), 400, "invalid_request", param=None)


def test_query_parameters_with_a_bearer(api, bearer):
    assert_error(api.get("/v1/me?expand=%7F", **bearer), 400, "invalid_request", param="expand")


@pytest.mark.parametrize("method", ["get", "delete"])
def test_path_ids(dashboard, method):
    response = getattr(dashboard, method)("/v1/api-keys/key_%00")
    assert_error(response, 400, "invalid_request", param="key_id")


def test_path_ids_of_a_rotation(dashboard):
    before = counts()
    assert_error(dashboard.post("/v1/api-keys/%1B/rotate"), 400, "invalid_request", param="key_id")
    assert counts() == before


def test_clean_input_is_untouched(dashboard):
    response = dashboard.post(
        "/v1/api-keys",
        json.dumps({"name": "Zoë’s key — 東京", "scopes": ["rates:read"]}),
        content_type="application/json",
    )
    assert response.status_code == 201
    assert response.json()["name"] == "Zoë’s key — 東京"
    assert dashboard.get("/v1/api-keys?limit=5").status_code == 200


# --- POST /oauth/register: invalid_client_metadata (RFC 7591) --------------------------------

REGISTRATION = '{"client_name": NAME, "redirect_uris": [URI], "token_endpoint_auth_method": "none"}'


def assert_oauth_error(response, code):
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"
    assert response["Request-Id"].startswith("req_")
    body = response.json()
    assert set(body) <= {"error", "error_description"}
    assert body["error"] == code
    return body


@pytest.mark.parametrize("bad", BAD_JSON_STRINGS)
def test_registration_client_name(bad):
    body = REGISTRATION.replace("NAME", f'"{bad}"').replace("URI", '"https://client.example.com/cb"')
    response = Client().post("/oauth/register", body, content_type="application/json")
    described = assert_oauth_error(response, "invalid_client_metadata")
    assert "client_name" in described["error_description"]
    assert Application.objects.count() == 0


@pytest.mark.parametrize("bad", ["https://client.example.com/\\ud800", "https://client.example.com/\\u0085"])
def test_registration_redirect_uri(bad):
    # The field's own RFC 7591 code, as for any other malformed redirect URI.
    body = REGISTRATION.replace("NAME", '"ok"').replace("URI", f'"{bad}"')
    assert_oauth_error(Client().post("/oauth/register", body, content_type="text/plain"), "invalid_redirect_uri")
    assert Application.objects.count() == 0


# --- POST /oauth/token: invalid_request (RFC 6749) ----------------------------------------------


@pytest.mark.parametrize("value", ["a%C2%85b", "%7F", "%00"])
def test_token_form_fields(value):
    app = make_client()
    body = f"grant_type=refresh_token&refresh_token=srt_x&client_id={app.client_id}{value}"
    described = assert_oauth_error(Client().post("/oauth/token", body, content_type=FORM), "invalid_request")
    assert "client_id" in described["error_description"]


# --- The consent API (/api/*): the envelope -----------------------------------------------------


def test_consent_decision(user):
    app = make_client()
    browser = signed_in(user)
    _verifier, challenge = pkce()
    txn_id = start(browser, app, challenge)
    response = browser.post(
        f"/api/oauth/transactions/{txn_id}/decision", '{"decision": "\\ud800"}', content_type="application/json"
    )
    assert_error(response, 400, "invalid_request", param="decision")
    assert ConsentTransaction.objects.get(pk=txn_id).decided_at is None


def test_consent_and_connection_path_ids(user):
    browser = signed_in(user)
    assert_error(browser.get("/api/oauth/transactions/otx_%00"), 400, "invalid_request", param="transaction_id")
    assert_error(browser.delete("/api/oauth/connections/dcr_%7F"), 400, "invalid_request", param="client_id")


# --- /mcp: its query; JSON-RPC bodies answer in JSON-RPC (SPEC 7.4) ----------------------------


def test_mcp_query(user):
    token = tokens_for(user, make_client(), resource=MCP)["access_token"]
    response = Client().post(
        "/mcp?trace=%00", "{}", content_type="application/json", headers={"Authorization": f"Bearer {token}"}
    )
    assert_error(response, 400, "invalid_request", param="trace")


# --- The check itself ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        ("plain", False),
        ("Zoë 東京 \U0001f600 \u200d \u2028 \ufffd", False),
        ("\x00", True),
        ("tab\there", True),
        ("\x1f", True),
        ("\x7f", True),
        ("\x80", True),
        ("\x9f", True),
        ("\xa0", False),
        ("\ud800", True),
        ("\udfff", True),
        ("x\udc00", True),
    ],
)
def test_forbidden_text(text, forbidden):
    assert forbidden_text(text) is forbidden


@pytest.mark.parametrize(
    "body",
    [
        b'{"a": "\\u0000"}',
        b'{"a": "\\u001F"}',
        b'{"a": "\\u007f"}',
        b'{"a": "\\u0085"}',
        b'{"a": "\\uD800"}',
        b'{"a": "\\udfff"}',
        b'{"a": "\x7f"}',
        '{"a": "\x85"}'.encode(),
    ],
)
def test_the_quick_scan_sees_every_way_json_can_carry_them(body):
    assert json_may_hold_forbidden_text(body)


@pytest.mark.parametrize("body", [b'{"name": "k", "scopes": ["rates:read"]}', '{"a": "Zoë \\u00e9"}'.encode()])
def test_the_quick_scan_passes_ordinary_bodies(body):
    assert not json_may_hold_forbidden_text(body)
