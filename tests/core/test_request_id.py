"""docs/spec.md 1.8: every response from the service carries a Request-Id header (req_ prefix)."""

import re

import pytest

REQ = re.compile(r"^req_[0-9A-Za-z]{24}$")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/v1/me", 401),
        ("/v1/openapi.json", 200),
        ("/v1/nowhere", 404),
        ("/login", 200),
        ("/admin/login/", 200),
        ("/not-a-page", 404),
        ("/", 302),
    ],
)
def test_every_path_carries_a_request_id(client, path, status):
    response = client.get(path)
    assert response.status_code == status
    assert REQ.match(response["Request-Id"])


@pytest.mark.django_db
def test_request_ids_differ_per_request(client):
    assert client.get("/v1/me")["Request-Id"] != client.get("/v1/me")["Request-Id"]


@pytest.mark.django_db
@pytest.mark.urls("tests.api_v1.urls_echo")
def test_server_error_pages_carry_a_request_id(client):
    client.raise_request_exception = False
    page = client.get("/boom")
    assert page.status_code == 500
    assert REQ.match(page["Request-Id"])
    assert b"internal detail" not in page.content


@pytest.mark.django_db
@pytest.mark.urls("tests.api_v1.urls_echo")
def test_api_server_error_is_the_envelope_without_detail(client):
    client.raise_request_exception = False
    response = client.get("/v1/_boom")
    assert response.status_code == 500
    body = response.json()["error"]
    assert body["code"] == "internal_error"
    assert body["type"] == "api_error"
    assert body["request_id"] == response["Request-Id"]
    assert b"internal detail" not in response.content
    assert b"Traceback" not in response.content
