"""Each audited action in the other parts leaves exactly one entry, written in
its own transaction, and a failed action leaves none (docs/spec.md 5.11)."""

import pytest
from django.test import Client

from apps.apikeys import services as apikeys
from apps.audit.models import AuditEvent, EventType
from apps.core.errors import ApiError
from tests.support.factories import make_api_key
from tests.support.oauth import (
    decide,
    exchange,
    get_code,
    make_client,
    pkce,
    refresh,
    signed_in,
    start,
    tokens_for,
)

pytestmark = pytest.mark.django_db


def entries(event_type=None):
    events = AuditEvent.objects.all()
    return list(events.filter(event_type=event_type) if event_type else events)


# -- OAuth ---------------------------------------------------------------------------


def test_allow_on_consent_records_one_connection(user):
    app = make_client()
    browser = signed_in(user)
    _, challenge = pkce()
    txn_id = start(browser, app, challenge)

    response = browser.post(
        f"/api/oauth/transactions/{txn_id}/decision",
        {"decision": "allow"},
        content_type="application/json",
        REMOTE_ADDR="192.0.2.10",
    )

    assert response.status_code == 200
    (event,) = entries()
    assert event.event_type == EventType.OAUTH_CONNECTION_CREATED
    assert event.user == user
    assert (event.actor_type, event.actor_id) == ("user", user.pk)
    assert event.client_id == app.client_id
    assert event.ip_address == "192.0.2.10"
    assert event.request_id == response["Request-Id"]
    assert event.data["scopes"] == ["rates:read", "calls:read"]


def test_deny_and_a_second_decision_record_nothing_more(user):
    app = make_client()
    browser = signed_in(user)
    _, challenge = pkce()
    denied = start(browser, app, challenge)
    assert decide(browser, denied, "deny").status_code == 200
    assert entries() == []

    allowed = start(browser, app, challenge)
    assert decide(browser, allowed, "allow").status_code == 200
    assert decide(browser, allowed, "allow").status_code == 409
    assert len(entries(EventType.OAUTH_CONNECTION_CREATED)) == 1


def test_refresh_records_one_entry_by_the_client(user):
    app = make_client()
    tokens = tokens_for(user, app)
    assert len(entries()) == 1  # the consent; the code exchange itself records nothing more

    response = refresh(Client(REMOTE_ADDR="198.51.100.20"), app, tokens["refresh_token"])

    assert response.status_code == 200
    (event,) = entries(EventType.OAUTH_TOKEN_REFRESHED)
    assert event.user == user
    assert (event.actor_type, event.actor_id) == ("client", app.client_id)
    assert event.client_id == app.client_id
    assert event.ip_address == "198.51.100.20"
    assert event.request_id == response["Request-Id"]


def test_failed_refreshes_record_nothing(user):
    app, other = make_client(), make_client()
    tokens = tokens_for(user, app)
    before = len(entries())
    assert refresh(Client(), app, "srt_" + "n" * 43).status_code == 400
    assert refresh(Client(), other, tokens["refresh_token"]).status_code == 400  # another client's token
    assert refresh(Client(), app, tokens["refresh_token"], scope="webhooks:manage").status_code == 400  # widening
    assert len(entries()) == before


def test_a_failed_code_exchange_records_nothing(user):
    app = make_client()
    browser = signed_in(user)
    _verifier, challenge = pkce()
    code = get_code(browser, app, challenge)
    before = len(entries())
    assert exchange(Client(), app, code, "wrong-verifier-" + "x" * 40).status_code == 400
    assert len(entries()) == before


# -- API keys ------------------------------------------------------------------------


def test_create_records_one_entry(user):
    key, _ = make_api_key(user)
    (event,) = entries()
    assert event.event_type == EventType.API_KEY_CREATED
    assert event.user == user
    assert event.key_id == key.pk


@pytest.mark.parametrize(
    "bad",
    [{"name": ""}, {"scopes": ["nope"]}, {"expires_in_days": 0}, {"ip_allowlist": ["not-an-ip"]}],
)
def test_a_refused_create_records_nothing(user, bad):
    with pytest.raises(ApiError):
        make_api_key(user, **bad)
    assert entries() == []


def test_create_over_the_limit_records_nothing_more(user):
    for _ in range(10):
        make_api_key(user)
    with pytest.raises(ApiError):
        make_api_key(user)
    assert len(entries(EventType.API_KEY_CREATED)) == 10


def test_rotate_records_one_entry_and_a_refused_rotate_none(user):
    key, _ = make_api_key(user)
    apikeys.apikey_rotate(key=key)
    (event,) = entries(EventType.API_KEY_ROTATED)
    assert (event.user, event.key_id) == (user, key.pk)

    apikeys.apikey_revoke(key=key)
    with pytest.raises(ApiError):
        apikeys.apikey_rotate(key=key)
    assert len(entries(EventType.API_KEY_ROTATED)) == 1


def test_revoke_records_one_entry_and_repeating_it_none(user):
    key, _ = make_api_key(user)
    apikeys.apikey_revoke(key=key)
    apikeys.apikey_revoke(key=key)
    (event,) = entries(EventType.API_KEY_REVOKED)
    assert (event.user, event.key_id) == (user, key.pk)
