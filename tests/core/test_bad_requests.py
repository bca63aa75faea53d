"""Requests Django itself refuses answer in the contract's shape (apps/core/views.handler400).

Django refuses more than DATA_UPLOAD_MAX_NUMBER_FIELDS (1,000) query parameters
or form fields, a body over DATA_UPLOAD_MAX_MEMORY_SIZE, and a Host it does not
serve, with its HTML "Bad Request (400)". On the machine paths the answer is the
envelope (/v1, /mcp, /api/*) or the RFC 6749 body (/oauth/token, /oauth/revoke,
/oauth/register), with Request-Id; pages keep Django's page.
"""

import pytest
from django.conf import settings
from django.test import Client

from tests.support.envelope import assert_error
from tests.support.oauth import FORM

pytestmark = pytest.mark.django_db

TOO_MANY = "&".join(f"p{i}=1" for i in range(1001))
OVER_CAP = "token=" + "a" * (256 * 1024)


def assert_oauth_400(response, code):
    assert response.status_code == 400, response.content[:300]
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"
    assert response["Request-Id"].startswith("req_")
    body = response.json()
    assert set(body) == {"error", "error_description"}
    assert body["error"] == code
    return body


def test_settings_are_djangos_caps():
    assert settings.DATA_UPLOAD_MAX_NUMBER_FIELDS == 1000
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE == 256 * 1024


def test_v1_too_many_query_parameters(api, bearer):
    response = api.get(f"/v1/me?{TOO_MANY}", **bearer)
    error = assert_error(response, 400, "invalid_request")
    assert "1,000" in error["message"]
    assert response["Service-Version"] == "2026-10-01"  # every /v1 response carries it (docs/spec.md 9)


def test_v1_session_endpoint_too_many_query_parameters(api, user):
    api.force_login(user)
    assert_error(api.get(f"/v1/api-keys?{TOO_MANY}"), 400, "invalid_request")


def test_mcp_too_many_query_parameters():
    assert_error(Client().post(f"/mcp?{TOO_MANY}", "{}", content_type="application/json"), 400, "invalid_request")


def test_session_api_too_many_query_parameters(user):
    browser = Client()
    browser.force_login(user)
    assert_error(browser.get(f"/api/oauth/connections?{TOO_MANY}"), 400, "invalid_request")


def test_session_api_body_over_the_cap(user):
    browser = Client()
    browser.force_login(user)
    response = browser.post(
        "/api/oauth/transactions/otx_x/decision", '{"decision": "' + "a" * (256 * 1024) + '"}', "application/json"
    )
    assert_error(response, 413, "request_too_large")


def test_token_too_many_form_fields():
    body = assert_oauth_400(Client().post("/oauth/token", TOO_MANY, content_type=FORM), "invalid_request")
    assert "1,000" in body["error_description"]


def test_token_body_over_the_cap():
    assert_oauth_400(Client().post("/oauth/token", OVER_CAP, content_type=FORM), "invalid_request")


def test_revoke_too_many_form_fields():
    assert_oauth_400(Client().post("/oauth/revoke", TOO_MANY, content_type=FORM), "invalid_request")


def test_revoke_body_over_the_cap():
    assert_oauth_400(Client().post("/oauth/revoke", OVER_CAP, content_type=FORM), "invalid_request")


def test_register_too_many_query_parameters():
    response = Client().post(f"/oauth/register?{TOO_MANY}", "{}", content_type="application/json")
    assert_oauth_400(response, "invalid_client_metadata")


def test_an_unserved_host_on_a_machine_path(api, bearer):
    response = api.get("/v1/me", HTTP_HOST="evil.example", **bearer)
    assert_error(response, 400, "invalid_request")
    assert_oauth_400(Client().post("/oauth/token", "", content_type=FORM, HTTP_HOST="evil.example"), "invalid_request")


def test_the_sign_in_page_answers_with_itself():
    # The sign-in page shows its form again, saying why (tests/accounts/test_signin_malformed.py).
    response = Client().get(f"/login?{TOO_MANY}")
    assert response.status_code == 400
    assert b'name="password"' in response.content and response["Request-Id"].startswith("req_")


def test_pages_keep_djangos_page():
    response = Client().post("/password-reset", TOO_MANY, content_type=FORM)
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")
    assert response["Request-Id"].startswith("req_")


@pytest.mark.parametrize(
    ("path", "body", "content_type"),
    [
        (f"/v1/me?{TOO_MANY}", "", FORM),
        (f"/mcp?{TOO_MANY}", "{}", "application/json"),
        ("/oauth/token", TOO_MANY, FORM),
        ("/oauth/token", OVER_CAP, FORM),
        ("/login", TOO_MANY, FORM),
        ("/login", OVER_CAP, FORM),
        ("/api/oauth/transactions/otx_1/decision", '{"a": "' + "b" * 300_000 + '"}', "application/json"),
    ],
)
def test_a_request_refused_for_size_or_field_count_logs_one_line_without_a_traceback(caplog, path, body, content_type):
    import logging

    with caplog.at_level(logging.INFO):
        response = Client().post(path, body, content_type=content_type)
    assert response.status_code in (400, 413)
    refused = [r for r in caplog.records if r.name.startswith("django.security.")]
    assert len(refused) == 1, [r.getMessage() for r in caplog.records]
    record = refused[0]
    assert record.exc_info is None and record.exc_text is None
    assert "\n" not in record.getMessage() and f"POST {path.split('?')[0]}" in record.getMessage()
    assert all(r.exc_info is None for r in caplog.records)
