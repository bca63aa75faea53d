"""Fuzzing POST /oauth/register: a 201 record of docs/spec.md 2.5 or an RFC 7591 error, never a 500."""

import json

import pytest
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from apps.oauth.models import Application

from .checks import (
    FUZZ,
    REGISTER_ERRORS,
    assert_not_server_error,
    assert_oauth_error,
    fresh_budgets,
    json_values,
    nasty_text,
)

URIS = [
    "https://client.example.com/callback",
    "http://127.0.0.1:8765/cb",
    "http://localhost/cb",
    "http://[::1]:9/cb",
    "http://client.example.com/cb",
    "https://client.example.com/cb#frag",
    "https://user:pw@client.example.com/cb",
    "https://*.example.com/cb",
    "javascript:alert(1)",
    "custom.scheme:/cb",
]
json_value = json_values(8)

metadata = st.fixed_dictionaries(
    {},
    optional={
        "client_name": st.one_of(nasty_text, st.text(min_size=99, max_size=102), json_value),
        "redirect_uris": st.one_of(st.lists(st.one_of(st.sampled_from(URIS), nasty_text), max_size=12), json_value),
        "application_type": st.one_of(st.sampled_from(["web", "native", "WEB", ""]), json_value),
        "token_endpoint_auth_method": st.one_of(
            st.sampled_from(["none", "client_secret_basic", "private_key_jwt"]), json_value
        ),
        "grant_types": st.one_of(
            st.lists(st.sampled_from(["authorization_code", "refresh_token", "client_credentials", "implicit"])),
            json_value,
        ),
        "response_types": st.one_of(st.lists(st.sampled_from(["code", "token", "id_token"])), json_value),
        "client_uri": st.one_of(st.sampled_from(URIS), nasty_text, json_value),
        "scope": st.one_of(nasty_text, json_value),
        "logo_uri": json_value,
        "jwks_uri": json_value,
    },
)


def check(response, before: int):
    assert_not_server_error(response)
    if response.status_code == 201:
        record = response.json()
        assert record["client_id"].startswith("dcr_")
        assert record["token_endpoint_auth_method"] == "none"
        assert record["application_type"] in ("web", "native")
        assert isinstance(record["client_id_issued_at"], int)
        assert "client_secret" not in record
        assert 1 <= len(record["redirect_uris"]) <= 10
        assert Application.objects.count() == before + 1
    else:
        assert_oauth_error(response, REGISTER_ERRORS)
        assert Application.objects.count() == before  # nothing half-written


@pytest.mark.django_db
def test_register_fuzzed_metadata():
    @FUZZ
    @given(metadata)
    def run(body):
        fresh_budgets()
        before = Application.objects.count()
        response = Client().post("/oauth/register", json.dumps(body), content_type="application/json")
        check(response, before)

    run()


@pytest.mark.django_db
def test_register_fuzzed_bodies():
    @FUZZ
    @given(
        body=st.one_of(st.binary(max_size=200), json_value.map(lambda v: json.dumps(v).encode())),
        content_type=st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded", ""]),
    )
    def run(body, content_type):
        fresh_budgets()
        before = Application.objects.count()
        response = Client().generic("POST", "/oauth/register", body, content_type=content_type)
        check(response, before)

    run()


@pytest.mark.django_db
def test_register_deeply_nested_json_is_refused_cleanly():
    body = "[" * 50_000 + "]" * 50_000
    response = Client().post("/oauth/register", body, content_type="application/json")
    assert_oauth_error(response, {"invalid_client_metadata"})
