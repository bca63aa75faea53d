"""Fuzzing POST /oauth/token and /oauth/revoke: docs/spec.md 7.3 errors only, never a 500 or a token."""

from urllib.parse import urlencode

import pytest
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from apps.oauth.models import AccessToken
from tests.support.oauth import FORM, MCP, REDIRECT, V1, make_client, tokens_for

from .checks import FUZZ, TOKEN_ERRORS, assert_not_server_error, assert_oauth_error, fresh_budgets, nasty_text

TOKEN_FIELDS = [
    "grant_type",
    "code",
    "code_verifier",
    "client_id",
    "redirect_uri",
    "resource",
    "refresh_token",
    "scope",
    "client_secret",
    "username",
    "password",
    "access_token",
]


def field_values(real: dict):
    return st.one_of(
        nasty_text,
        st.sampled_from(
            [
                "authorization_code",
                "refresh_token",
                "client_credentials",
                "password",
                "urn:ietf:params:oauth:grant-type:device_code",
                REDIRECT,
                V1,
                MCP,
                "rates:read",
                "rates:read calls:read webhooks:manage",
                "sat_" + "A" * 43,
                "srt_" + "A" * 43,
                *real.values(),
            ]
        ),
    )


@pytest.fixture
def real(db, user):
    app = make_client()
    tokens = tokens_for(user, app)
    return {"client_id": app.client_id, "refresh": tokens["refresh_token"], "access": tokens["access_token"]}


@pytest.mark.django_db
def test_token_endpoint_fuzzed_forms(real):
    access_before = AccessToken.objects.count()

    @FUZZ
    @given(
        st.dictionaries(
            st.one_of(st.sampled_from(TOKEN_FIELDS), nasty_text),
            st.one_of(field_values(real), st.lists(field_values(real), min_size=2, max_size=3)),
            max_size=8,
        )
    )
    def run(form):
        fresh_budgets()
        # A guessed or garbled form must never mint tokens; a well-formed refresh with the
        # real token would, so leave that one combination out of the fuzzed space.
        if form.get("refresh_token") == real["refresh"]:
            form = {**form, "refresh_token": real["refresh"] + "x"}
        response = Client().post("/oauth/token", urlencode(form, doseq=True), content_type=FORM)
        assert_oauth_error(response, TOKEN_ERRORS)

    run()
    assert AccessToken.objects.count() == access_before


@pytest.mark.django_db
def test_token_endpoint_fuzzed_bodies_and_content_types(real):
    @FUZZ
    @given(
        body=st.one_of(st.binary(max_size=300), nasty_text.map(str.encode)),
        content_type=st.sampled_from(
            [FORM, "application/json", "text/plain", "multipart/form-data; boundary=x", "", FORM + "; charset=latin-1"]
        ),
        in_query=st.booleans(),
    )
    def run(body, content_type, in_query):
        fresh_budgets()
        path = "/oauth/token?grant_type=refresh_token&client_id=x&refresh_token=y" if in_query else "/oauth/token"
        response = Client().generic("POST", path, body, content_type=content_type)
        assert_oauth_error(response, TOKEN_ERRORS)

    run()


@pytest.mark.django_db
def test_token_endpoint_other_methods(real):
    for method in ("get", "put", "patch", "delete"):
        response = getattr(Client(), method)("/oauth/token")
        assert_not_server_error(response)
        assert response.status_code == 405


@pytest.mark.django_db
def test_revoke_endpoint_fuzzed(real):
    @FUZZ
    @given(
        st.dictionaries(
            st.sampled_from(["token", "token_type_hint", "client_id", "x"]),
            st.one_of(field_values(real), st.lists(nasty_text, min_size=2, max_size=3)),
            max_size=4,
        ),
        st.sampled_from([FORM, "application/json", "text/plain", FORM + "; charset=latin-1"]),
    )
    def run(form, content_type):
        fresh_budgets()
        # Revoking the real token is a success tested in tests/oauth; keep it alive here.
        if form.get("token") == real["access"]:
            form = {**form, "token": real["access"] + "x"}
        response = Client().generic("POST", "/oauth/revoke", urlencode(form, doseq=True), content_type=content_type)
        assert_not_server_error(response)
        if response.status_code == 200:
            # RFC 7009: any token given once in a proper form is answered 200, known or not.
            assert content_type == FORM and form.get("token")
            assert response["Cache-Control"] == "no-store"
        else:
            assert_oauth_error(response, {"invalid_request", "temporarily_unavailable"})

    run()
    assert AccessToken.objects.get(token_checksum=digest_of(real["access"])).is_valid()


def digest_of(token: str) -> str:
    import hashlib

    return hashlib.sha256(token.encode()).hexdigest()


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/oauth/token", "/oauth/revoke"])
@pytest.mark.parametrize("charset", ["latin-1", "utf-16", "ascii"])
def test_form_in_another_charset_is_invalid_request_not_an_html_page(path, charset):
    """Regression (found by fuzzing): Django refuses non-UTF-8 forms with its HTML 400 page."""
    response = Client().generic(
        "POST", path, b"grant_type=refresh_token&token=x", content_type=f"{FORM}; charset={charset}"
    )
    assert_oauth_error(response, {"invalid_request"})
