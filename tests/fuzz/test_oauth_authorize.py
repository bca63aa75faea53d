"""Fuzzing GET /oauth/authorize: an error page, a redirect with docs/spec.md 7.3's errors, or consent; never a 500."""

from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apps.oauth.models import ConsentTransaction
from tests.support.oauth import BASE, MCP, REDIRECT, V1, authorize_params, make_client, pkce, query, signed_in

from .checks import AUTHORIZE_REDIRECT_ERRORS, FUZZ, assert_not_server_error, fresh_budgets, nasty_text

FIELDS = [
    "response_type",
    "client_id",
    "redirect_uri",
    "scope",
    "state",
    "code_challenge",
    "code_challenge_method",
    "resource",
    "prompt",
    "request_uri",
    "access_token",
]


def values(app):
    return st.one_of(
        nasty_text,
        st.sampled_from(
            [
                "code",
                "token",
                app.client_id,
                "dcr_unknown",
                "https://client.example.test/metadata.json",
                REDIRECT,
                REDIRECT + "/extra",
                "http://127.0.0.1:9999/callback",
                "rates:read",
                "rates:read bogus:scope",
                "S256",
                "plain",
                V1,
                MCP,
                V1 + "/",
                "A" * 43,
            ]
        ),
    )


@pytest.fixture
def setup(db, user):
    app = make_client()
    _verifier, challenge = pkce()
    return app, challenge, signed_in(user)


def check(response, app):
    assert_not_server_error(response)
    if response.status_code in (301, 302, 303, 307):
        location = response["Location"]
        if location.startswith(f"{BASE}/oauth/consent?transaction=otx_") or location.startswith(f"{BASE}/login"):
            return
        # Only to a registered redirect URI of this client, with the RFC 9207 iss and the state.
        target = location.split("?")[0]
        assert target in app.redirect_uris.split(), location
        params = query(location)
        assert params.get("iss") == BASE, location
        assert params["error"] in AUTHORIZE_REDIRECT_ERRORS, location
        assert "code" not in params
    else:
        # A bad client or redirect URI is a page on our own host, never a redirect (docs/spec.md 4.3).
        assert response.status_code in (400, 403, 404, 429, 503), response.status_code
        assert b"Traceback" not in response.content


@pytest.mark.django_db
def test_authorize_fuzzed_parameters(setup, no_network):
    app, _challenge, browser = setup

    @FUZZ
    @given(st.dictionaries(st.one_of(st.sampled_from(FIELDS), nasty_text), values(app), max_size=10))
    def run(params):
        fresh_budgets()
        check(browser.get("/oauth/authorize", params), app)

    run()


@pytest.mark.django_db
def test_authorize_single_field_mutations(setup, no_network):
    """A valid request with one field replaced, dropped or repeated: the spec's answer for each."""
    app, challenge, browser = setup

    @FUZZ
    @given(
        field=st.sampled_from(FIELDS[:8]),
        mutation=st.one_of(st.none(), values(app), st.lists(values(app), min_size=2, max_size=2)),
    )
    def run(field, mutation):
        fresh_budgets()
        params = authorize_params(app, challenge)
        if mutation is None:
            params.pop(field)
        else:
            params[field] = mutation
        response = browser.get("/oauth/authorize", params)
        check(response, app)
        if response.status_code == 302 and "transaction=otx_" in response["Location"]:
            txn = ConsentTransaction.objects.get(pk=query(response["Location"])["transaction"])
            assert txn.resource in (V1, MCP)
            assert txn.redirect_uri in app.redirect_uris.split()

    run()


@pytest.mark.django_db
def test_authorize_post_and_anonymous(setup, no_network):
    from django.test import Client

    app, challenge, browser = setup
    params = authorize_params(app, challenge)
    response = Client().get("/oauth/authorize", params)
    assert response.status_code == 302
    assert urlsplit(response["Location"]).path == "/login"
    response = browser.post("/oauth/authorize", params)
    assert_not_server_error(response)
    assert response.status_code in (302, 400, 405)
