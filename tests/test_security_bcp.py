"""Points of RFC 9700 (OAuth 2.0 Security BCP) not covered elsewhere; see docs/security.md."""

import pytest
from django.test import Client

from tests.support.factories import PASSWORD
from tests.support.oauth import REDIRECT, authorize_params, make_client, pkce, signed_in, start

BROWSER_PAGES = ["consent", "error", "login"]


def _page(kind, user, app):
    browser = signed_in(user)
    _verifier, challenge = pkce()
    if kind == "consent":
        return browser.get(f"/oauth/consent?transaction={start(browser, app, challenge)}")
    if kind == "error":
        return browser.get("/oauth/authorize", authorize_params(app, challenge, client_id="dcr_unknown"))
    return Client().get("/login")


@pytest.mark.django_db
@pytest.mark.parametrize("kind", BROWSER_PAGES)
def test_pages_cannot_be_framed_and_leak_no_referrer(user, kind):
    """RFC 9700 4.16 (clickjacking) and 4.2.4 (Referrer-Policy against code leakage)."""
    response = _page(kind, user, make_client())
    assert response.status_code in (200, 400)
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] in ("same-origin", "no-referrer", "strict-origin")


@pytest.mark.django_db
def test_authorization_responses_use_302_never_307(user):
    """RFC 9700 4.12: a 307 would make the browser re-post the sign-in form to the client."""
    app = make_client()
    _verifier, challenge = pkce()
    browser = Client()
    response = browser.get("/oauth/authorize", authorize_params(app, challenge))
    assert response.status_code == 302  # to sign-in
    login = browser.post(response["Location"], {"username": user.email, "password": PASSWORD})
    assert login.status_code == 302
    assert signed_in(user).get("/oauth/authorize", authorize_params(app, challenge, scope="")).status_code == 302


@pytest.mark.django_db
def test_code_never_travels_in_a_fragment_or_to_an_unregistered_host(user):
    """RFC 9700 4.1 and 4.11: exact redirect URI, query response mode only (no implicit, no fragment)."""
    from tests.support.oauth import decide, query

    app = make_client()
    browser = signed_in(user)
    _verifier, challenge = pkce()
    txn = start(browser, app, challenge)
    redirect_to = decide(browser, txn, "allow").json()["redirect_to"]
    assert redirect_to.startswith(REDIRECT + "?") and "#" not in redirect_to
    assert set(query(redirect_to)) == {"code", "state", "iss"}
    for response_mode in ("fragment", "form_post"):
        response = browser.get("/oauth/authorize", authorize_params(app, challenge, response_mode=response_mode))
        assert "#" not in response.get("Location", "")
