"""Fuzzing the consent endpoints (docs/spec.md 4.5).

Only envelope errors of docs/spec.md 7.2, and decisions taken at most once.
"""

import json
from urllib.parse import quote

import pytest
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from apps.oauth.models import ConsentTransaction, Grant
from tests.support.oauth import make_client, pkce, query, signed_in, start

from .checks import FUZZ, assert_registered_envelope, fresh_budgets, json_values, nasty_text

TRANSACTION_CODES = {
    "transaction_not_found",
    "transaction_binding_failed",
    "transaction_decided",
    "transaction_expired",
    "client_disabled",
    "invalid_token",
    "forbidden",
    "not_found",
    "method_not_allowed",
    "rate_limited",
    # An id holding a control character is refused before any lookup (apps/core/inputs.py).
    "invalid_request",
}
DECISION_CODES = TRANSACTION_CODES | {
    "invalid_body",
    "invalid_decision",
    "confirmation_required",
    "unsupported_media_type",
    "request_too_large",
    "invalid_request",
}
json_value = json_values(6)
decision_body = st.one_of(
    json_value,
    st.fixed_dictionaries(
        {},
        optional={
            "decision": st.one_of(st.sampled_from(["allow", "deny", "ALLOW", "", "maybe"]), json_value),
            "confirm_sensitive": json_value,
        },
    ),
)


@pytest.fixture
def flow(db, user):
    app = make_client(name="Fuzzed App")
    _verifier, challenge = pkce()
    browser = signed_in(user)
    # Sensitive scope on a self-registered client: allow without the tick is confirmation_required.
    app.registration_source = app.RegistrationSource.DCR
    app.save()
    return app, challenge, browser


@pytest.mark.django_db
def test_transaction_ids_fuzzed(flow):
    _app, _challenge, browser = flow

    @FUZZ
    @given(st.one_of(nasty_text, st.from_regex(r"otx_[A-Za-z0-9]{0,30}", fullmatch=True)))
    def run(txn_id):
        fresh_budgets()
        path = f"/api/oauth/transactions/{quote(txn_id, safe='')}"
        response = browser.get(path)
        assert_registered_envelope(response, TRANSACTION_CODES)
        response = browser.post(f"{path}/decision", json.dumps({"decision": "allow"}), content_type="application/json")
        assert_registered_envelope(response, DECISION_CODES)

    run()


@pytest.mark.django_db
def test_decision_bodies_fuzzed(flow):
    app, challenge, browser = flow

    @FUZZ
    @given(
        body=st.one_of(decision_body.map(json.dumps), st.binary(max_size=100).map(lambda b: b.decode("latin-1"))),
        content_type=st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded"]),
    )
    def run(body, content_type):
        fresh_budgets()
        txn_id = start(browser, app, challenge, scope="rates:read calls:place")
        grants = Grant.objects.count()
        response = browser.generic(
            "POST", f"/api/oauth/transactions/{txn_id}/decision", body.encode(), content_type=content_type
        )
        txn = ConsentTransaction.objects.get(pk=txn_id)
        if response.status_code == 200:
            redirect_to = response.json()["redirect_to"]
            params = query(redirect_to)
            assert params["state"] == "xyz-state" and params["iss"] == "http://testserver"
            decided = json.loads(body)["decision"]
            assert decided in ("allow", "deny")
            assert txn.decision == decided
            if decided == "allow":
                assert "code" in params and Grant.objects.count() == grants + 1
                assert json.loads(body).get("confirm_sensitive") is True
            else:
                assert params["error"] == "access_denied" and Grant.objects.count() == grants
        else:
            assert_registered_envelope(response, DECISION_CODES)
            # A refused decision changes nothing: still awaiting a decision, no code issued.
            assert txn.decision == "" and txn.decided_at is None
            assert Grant.objects.count() == grants

    run()


@pytest.mark.django_db
def test_decision_by_another_user_or_browser(flow, db):
    from tests.support.factories import UserFactory

    app, challenge, browser = flow
    txn_id = start(browser, app, challenge)
    for other in (signed_in(UserFactory()), Client()):
        response = other.post(
            f"/api/oauth/transactions/{txn_id}/decision", {"decision": "allow"}, content_type="application/json"
        )
        assert_registered_envelope(response, {"transaction_binding_failed", "invalid_token"})
    assert ConsentTransaction.objects.get(pk=txn_id).decision == ""


@pytest.mark.django_db
def test_connection_ids_fuzzed(flow):
    _app, _challenge, browser = flow

    @FUZZ
    @given(nasty_text)
    def run(client_id):
        fresh_budgets()
        response = browser.delete(f"/api/oauth/connections/{quote(client_id, safe='')}")
        if response.status_code not in (200, 204):
            codes = {"connection_not_found", "not_found", "forbidden", "rate_limited", "invalid_request"}
            assert_registered_envelope(response, codes)

    run()
