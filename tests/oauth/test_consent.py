"""The consent transaction (docs/spec.md 3.1), its endpoints (docs/spec.md 4.5) and the consent page."""

from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from apps.audit.models import AuditEvent, EventType
from apps.credentials.scopes import SCOPES
from apps.oauth.models import ConsentTransaction, Grant, RefreshToken
from apps.oauth.services import transaction_create
from apps.oauth.views.authorize import BINDING_COOKIE
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory
from tests.support.oauth import (
    BASE,
    REDIRECT,
    V1,
    decide,
    exchange,
    make_client,
    pkce,
    query,
    refresh,
    signed_in,
    start,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def app():
    return make_client(name="Pocket Assistant")


@pytest.fixture
def txn_id(browser, app):
    return start(browser, app, pkce()[1])


# -- GET /api/oauth/transactions/{id} ---------------------------------------


def test_read_transaction_shape(browser, app, user):
    txn_id = start(browser, app, pkce()[1], scope="rates:read messages:read")
    response = browser.get(f"/api/oauth/transactions/{txn_id}")
    assert response.status_code == 200
    assert response["Cache-Control"].startswith("no-store") or "no-store" in response["Cache-Control"]
    body = response.json()
    txn = ConsentTransaction.objects.get(pk=txn_id)
    assert body == {
        "id": txn_id,
        "object": "oauth_transaction",
        "client": {
            "client_id": app.client_id,
            "name": "Pocket Assistant",
            "registration": "self-registered",
            "redirect_host": "client.example.com",
            "client_id_host": None,  # not identified by a metadata document URL
        },
        "scopes": [
            {
                "scope": "rates:read",
                "description": SCOPES["rates:read"].sentence,
                "sensitive": False,
                "held": False,
                "new": False,
                "ticked": True,
            },
            {
                "scope": "messages:read",
                "description": "Read new codes and messages in your SMS inbox.",
                "sensitive": True,
                "held": False,
                "new": False,
                "ticked": False,  # sensitive and not held yet: the page offers it unticked
            },
        ],
        "step_up": False,
        "confirmation_required": False,  # a manually registered client (not dynamic)
        "rules": None,  # calls:place not asked: no allowance to choose
        "resource": V1,
        "expires_at": int(txn.expires_at.timestamp()),
    }


@pytest.mark.parametrize(
    "fields,kind,confirm",
    [
        ({"registration_source": "dcr"}, "self-registered", True),
        ({"registration_source": "dcr", "verified_partner": True}, "verified partner", False),
        ({"registration_source": "cimd"}, "registered by URL", False),
    ],
)
def test_registration_kind_and_confirmation(browser, fields, kind, confirm):
    app = make_client(**fields)
    txn_id = start(browser, app, pkce()[1], scope="rates:read calls:place")
    body = browser.get(f"/api/oauth/transactions/{txn_id}").json()
    assert body["client"]["registration"] == kind
    assert body["confirmation_required"] is confirm


def test_self_registered_without_sensitive_scope_needs_no_confirmation(browser):
    app = make_client(registration_source="dcr")
    txn_id = start(browser, app, pkce()[1], scope="rates:read calls:read")
    assert browser.get(f"/api/oauth/transactions/{txn_id}").json()["confirmation_required"] is False


def test_read_unknown_transaction(browser):
    assert_error(browser.get("/api/oauth/transactions/otx_000000000000000000000000"), 404, "transaction_not_found")
    assert_error(browser.get("/api/oauth/transactions/nonsense"), 404, "transaction_not_found")


def test_read_from_another_browser_of_the_same_user(txn_id, user):
    other_browser = signed_in(user)
    assert_error(other_browser.get(f"/api/oauth/transactions/{txn_id}"), 403, "transaction_binding_failed")
    other_browser.cookies[BINDING_COOKIE] = "forged-value"
    assert_error(other_browser.get(f"/api/oauth/transactions/{txn_id}"), 403, "transaction_binding_failed")


def test_read_by_another_user_in_the_same_browser(browser, txn_id):
    other = UserFactory()
    from tests.support.factories import PASSWORD

    browser.logout()
    assert browser.login(username=other.email, password=PASSWORD)
    assert_error(browser.get(f"/api/oauth/transactions/{txn_id}"), 403, "transaction_binding_failed")


def test_read_without_session(txn_id):
    error = assert_error(Client().get(f"/api/oauth/transactions/{txn_id}"), 401, "invalid_token")
    assert "Sign in" in error["message"]


def test_read_expired_transaction(browser, txn_id):
    ConsentTransaction.objects.filter(pk=txn_id).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert_error(browser.get(f"/api/oauth/transactions/{txn_id}"), 410, "transaction_expired")


def test_read_when_client_disabled(browser, app, txn_id):
    app.disabled_at = timezone.now()
    app.save()
    assert_error(browser.get(f"/api/oauth/transactions/{txn_id}"), 403, "client_disabled")


def test_read_decided_transaction(browser, txn_id):
    decide(browser, txn_id, "deny")
    assert_error(browser.get(f"/api/oauth/transactions/{txn_id}"), 409, "transaction_decided")


# -- POST /api/oauth/transactions/{id}/decision -----------------------------


def test_allow_redirects_with_code_state_iss_and_emails_owner(
    browser, app, user, txn_id, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = decide(browser, txn_id, "allow")
    assert response.status_code == 200
    redirect_to = response.json()["redirect_to"]
    assert redirect_to.startswith(REDIRECT + "?")
    params = query(redirect_to)
    assert set(params) == {"code", "state", "iss"}
    assert params["state"] == "xyz-state" and params["iss"] == BASE
    grant = Grant.objects.get()
    assert grant.code != params["code"] and len(grant.code) == 64  # digest only
    assert grant.resource == [V1] and grant.code_challenge_method == "S256"
    assert (grant.expires - grant.created).total_seconds() == pytest.approx(60, abs=1)
    txn = ConsentTransaction.objects.get(pk=txn_id)
    assert txn.decision == "allow" and txn.decided_at is not None
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == [user.email]
    assert "Pocket Assistant" in message.subject
    assert "See what calls cost per minute to a number or a country, from the published price list." in message.body


def test_deny_redirects_access_denied(browser, txn_id):
    response = decide(browser, txn_id, "deny")
    assert response.status_code == 200
    params = query(response.json()["redirect_to"])
    assert params["error"] == "access_denied"
    assert params["state"] == "xyz-state" and params["iss"] == BASE
    assert Grant.objects.count() == 0
    assert len(mail.outbox) == 0


@pytest.mark.parametrize("decision", [None, "", "maybe", "ALLOW", 1, True])
def test_invalid_decision(browser, txn_id, decision):
    assert_error(decide(browser, txn_id, decision), 400, "invalid_decision", param="decision")
    assert ConsentTransaction.objects.get(pk=txn_id).decided_at is None


def test_invalid_body(browser, txn_id):
    url = f"/api/oauth/transactions/{txn_id}/decision"
    assert_error(browser.post(url, "not json", content_type="application/json"), 400, "invalid_body")
    assert_error(browser.post(url, "[1, 2]", content_type="application/json"), 400, "invalid_body")
    assert ConsentTransaction.objects.get(pk=txn_id).decided_at is None


def test_sensitive_scope_of_self_registered_client_needs_confirmation(browser):
    app = make_client(registration_source="dcr")
    txn_id = start(browser, app, pkce()[1], scope="rates:read transcripts:read")
    assert_error(decide(browser, txn_id, "allow"), 400, "confirmation_required", param="confirm_sensitive")
    assert_error(
        decide(browser, txn_id, "allow", confirm_sensitive=False),
        400,
        "confirmation_required",
        param="confirm_sensitive",
    )
    assert_error(
        decide(browser, txn_id, "allow", confirm_sensitive="yes"),
        400,
        "confirmation_required",
        param="confirm_sensitive",
    )
    assert ConsentTransaction.objects.get(pk=txn_id).decided_at is None
    assert Grant.objects.count() == 0
    # still awaiting a decision: ticking the box now works
    response = decide(browser, txn_id, "allow", confirm_sensitive=True)
    assert response.status_code == 200 and "code" in query(response.json()["redirect_to"])


def test_deny_never_needs_confirmation(browser):
    app = make_client(registration_source="dcr")
    txn_id = start(browser, app, pkce()[1], scope="calls:place")
    assert decide(browser, txn_id, "deny").status_code == 200


def test_verified_partner_needs_no_confirmation(browser):
    app = make_client(registration_source="dcr", verified_partner=True)
    txn_id = start(browser, app, pkce()[1], scope="calls:place")
    assert decide(browser, txn_id, "allow").status_code == 200


@pytest.mark.parametrize("first,second", [("allow", "allow"), ("allow", "deny"), ("deny", "allow")])
def test_second_decision_is_refused(browser, txn_id, first, second):
    assert decide(browser, txn_id, first).status_code == 200
    assert_error(decide(browser, txn_id, second), 409, "transaction_decided")
    assert Grant.objects.count() == (1 if first == "allow" else 0)


def test_decision_after_ten_minutes(browser, txn_id):
    ConsentTransaction.objects.filter(pk=txn_id).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert_error(decide(browser, txn_id, "allow"), 410, "transaction_expired")
    assert Grant.objects.count() == 0


def test_decision_from_another_browser(txn_id, user):
    assert_error(decide(signed_in(user), txn_id, "allow"), 403, "transaction_binding_failed")
    assert Grant.objects.count() == 0


def test_decision_by_another_user(browser, txn_id):
    from tests.support.factories import PASSWORD

    other = UserFactory()
    binding = browser.cookies[BINDING_COOKIE].value
    intruder = signed_in(other)
    intruder.cookies[BINDING_COOKIE] = binding
    assert_error(decide(intruder, txn_id, "allow"), 403, "transaction_binding_failed")
    assert PASSWORD and Grant.objects.count() == 0


def test_decision_unknown_transaction(browser):
    assert_error(decide(browser, "otx_000000000000000000000000", "allow"), 404, "transaction_not_found")


def test_decision_without_session(txn_id):
    assert_error(decide(Client(), txn_id, "allow"), 401, "invalid_token")


def test_decision_requires_csrf_header(user, app):
    browser = Client(enforce_csrf_checks=True)
    from tests.support.factories import PASSWORD

    assert browser.login(username=user.email, password=PASSWORD)
    txn_id = start(browser, app, pkce()[1])
    url = f"/api/oauth/transactions/{txn_id}/decision"
    assert_error(browser.post(url, {"decision": "allow"}, content_type="application/json"), 403, "forbidden")
    page = browser.get(f"/oauth/consent?transaction={txn_id}")
    token = page.cookies["csrftoken"].value
    response = browser.post(url, {"decision": "allow"}, content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 200


def test_decision_get_is_not_allowed(browser, txn_id):
    assert browser.get(f"/api/oauth/transactions/{txn_id}/decision").status_code == 405


# -- the consent page -------------------------------------------------------


def test_consent_page_shows_client_kind_host_and_scope_sentences(browser):
    app = make_client(name="Pocket Assistant", registration_source="dcr")
    txn_id = start(browser, app, pkce()[1], scope="rates:read calls:place")
    page = browser.get(f"/oauth/consent?transaction={txn_id}")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Pocket Assistant" in html
    assert "Self-registered" in html
    assert "client.example.com" in html
    assert "See what calls cost per minute to a number or a country, from the published price list." in html
    assert "Place calls from your account, which spends your credit." in html
    assert 'id="confirm-sensitive"' in html
    assert "no-store" in page["Cache-Control"] or "no-cache" in page["Cache-Control"]


def test_consent_page_without_sensitive_scope_has_no_checkbox(browser, txn_id):
    html = browser.get(f"/oauth/consent?transaction={txn_id}").content.decode()
    assert 'id="confirm-sensitive"' not in html


def test_consent_page_signs_in_first_and_comes_back(txn_id, user):
    from tests.support.factories import PASSWORD

    fresh = Client()
    url = f"/oauth/consent?transaction={txn_id}"
    response = fresh.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/login?next=/oauth/consent%3Ftransaction%3Dotx_")
    response = fresh.post("/login", {"username": user.email, "password": PASSWORD, "next": url})
    assert response.status_code == 302 and response["Location"] == url


def test_consent_page_errors_render_a_page(browser, txn_id):
    response = browser.get("/oauth/consent?transaction=otx_000000000000000000000000")
    assert response.status_code == 404 and b"transaction_not_found" in response.content
    decide(browser, txn_id, "deny")
    response = browser.get(f"/oauth/consent?transaction={txn_id}")
    assert response.status_code == 409 and b"transaction_decided" in response.content


# -- granular consent: the user may untick scopes before Allow ------------------


def test_consent_page_lists_every_scope_ticking_only_what_is_not_sensitive(browser):
    txn_id = start(browser, make_client(registration_source="dcr"), pkce()[1], scope="rates:read calls:place")
    html = browser.get(f"/oauth/consent?transaction={txn_id}").content.decode()
    assert 'name="scopes" value="rates:read" checked' in html
    assert 'name="scopes" value="calls:place" data-sensitive="true"' in html


def test_allowing_a_subset_issues_a_code_and_tokens_for_that_subset_only(browser, app, user):
    verifier, challenge = pkce()
    txn_id = start(browser, app, challenge, scope="rates:read credits:read calls:read")

    response = decide(browser, txn_id, "allow", scopes=["credits:read", "rates:read"])

    assert response.status_code == 200, response.content
    assert Grant.objects.get().scope == "rates:read credits:read"  # in the order requested
    tokens = exchange(Client(), app, query(response.json()["redirect_to"])["code"], verifier)
    assert tokens.status_code == 200, tokens.content
    assert tokens.json()["scope"] == "rates:read credits:read"
    assert RefreshToken.objects.get().scope == "rates:read credits:read"
    event = AuditEvent.objects.get(event_type=EventType.OAUTH_CONNECTION_CREATED)
    assert event.data["scopes"] == ["rates:read", "credits:read"]
    assert event.data["declined_scopes"] == ["calls:read"]
    # a refresh cannot win back what was unticked (docs/spec.md 2.3: never widen)
    widened = refresh(Client(), app, tokens.json()["refresh_token"], scope="calls:read")
    assert widened.status_code == 400 and widened.json()["error"] == "invalid_scope"


def test_allowing_every_scope_by_list_equals_allowing_without_one(browser, app):
    txn_id = start(browser, app, pkce()[1], scope="rates:read calls:read")
    assert decide(browser, txn_id, "allow", scopes=["calls:read", "rates:read", "rates:read"]).status_code == 200
    assert Grant.objects.get().scope == "rates:read calls:read"
    assert "declined_scopes" not in AuditEvent.objects.get().data


def test_the_email_lists_only_the_scopes_allowed(browser, app, django_capture_on_commit_callbacks):
    txn_id = start(browser, app, pkce()[1], scope="rates:read calls:read")
    with django_capture_on_commit_callbacks(execute=True):
        assert decide(browser, txn_id, "allow", scopes=["calls:read"]).status_code == 200
    (message,) = mail.outbox
    assert "See what calls cost per minute to a number or a country, from the published price list." not in message.body


@pytest.mark.parametrize(
    "scopes",
    [
        [],
        "rates:read",
        "rates:read calls:read",
        ["calls:place"],
        ["rates:read", "calls:place"],
        [1],
        [None],
        None,
        {"rates:read": True},
        ["RATES:READ"],
        ["rates:read "],
    ],
)
@pytest.mark.parametrize("decision", ["allow", "deny"])
def test_scopes_other_than_a_non_empty_subset_are_refused_and_change_nothing(browser, app, scopes, decision):
    txn_id = start(browser, app, pkce()[1], scope="rates:read calls:read")
    error = assert_error(decide(browser, txn_id, decision, scopes=scopes), 400, "invalid_request", param="scopes")
    assert "rates:read, calls:read" in error["message"]
    assert error["type"] == "invalid_request_error"
    assert ConsentTransaction.objects.get(pk=txn_id).decided_at is None
    assert not Grant.objects.exists() and not AuditEvent.objects.exists()


def test_unticking_every_sensitive_scope_needs_no_confirmation(browser):
    app = make_client(registration_source="dcr")
    verifier, challenge = pkce()
    txn_id = start(browser, app, challenge, scope="rates:read calls:place transcripts:read")
    # while a sensitive scope stays ticked, the second confirmation is needed
    assert_error(
        decide(browser, txn_id, "allow", scopes=["rates:read", "transcripts:read"]),
        400,
        "confirmation_required",
        param="confirm_sensitive",
    )
    response = decide(browser, txn_id, "allow", scopes=["rates:read"])
    assert response.status_code == 200, response.content
    tokens = exchange(Client(), app, query(response.json()["redirect_to"])["code"], verifier)
    assert tokens.json()["scope"] == "rates:read"


def test_a_ticked_sensitive_scope_with_confirmation_is_granted(browser):
    app = make_client(registration_source="dcr")
    txn_id = start(browser, app, pkce()[1], scope="rates:read calls:place")
    response = decide(browser, txn_id, "allow", scopes=["calls:place"], confirm_sensitive=True)
    assert response.status_code == 200, response.content
    assert Grant.objects.get().scope == "calls:place"


# -- a client identified by its metadata document URL ---------------------------

DOCUMENT_URL = "https://tools.example.org/oauth/client.json"


@pytest.fixture
def document_client_txn(user, browser):
    """A consent transaction for a client registered by URL, made by the service that
    /oauth/authorize calls (no document is fetched here; tests/oauth/test_cimd.py does that)."""
    app = make_client(
        client_id=DOCUMENT_URL,
        name="Tools Assistant",
        registration_source="cimd",
        redirect_uris="https://assistant.example/callback",
    )
    browser.cookies[BINDING_COOKIE] = "binding-secret-of-this-browser"
    return transaction_create(
        application=app,
        user=user,
        binding_secret="binding-secret-of-this-browser",
        scopes=["rates:read"],
        redirect_uri="https://assistant.example/callback",
        state="s",
        code_challenge=pkce()[1],
        resource=V1,
    )


def test_transaction_of_a_document_client_names_the_client_id_host(browser, document_client_txn):
    client = browser.get(f"/api/oauth/transactions/{document_client_txn.pk}").json()["client"]
    assert client["registration"] == "registered by URL"
    assert client["client_id_host"] == "tools.example.org"
    assert client["redirect_host"] == "assistant.example"


def test_consent_page_of_a_document_client_shows_both_hosts(browser, document_client_txn):
    html = browser.get(f"/oauth/consent?transaction={document_client_txn.pk}").content.decode()
    assert '<dd id="client-id-host">tools.example.org</dd>' in html
    assert '<dd id="redirect-host">assistant.example</dd>' in html


def test_consent_page_of_other_clients_shows_no_client_id_host(browser, txn_id):
    assert 'id="client-id-host"' not in browser.get(f"/oauth/consent?transaction={txn_id}").content.decode()
