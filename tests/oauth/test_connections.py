"""GET/DELETE /api/oauth/connections (docs/spec.md 3.3, 4.5, 5.12, 7.2 connection_not_found)."""

from datetime import timedelta
from urllib.parse import quote

import pytest
from django.test import Client
from django.utils import timezone

from apps.audit.models import AuditEvent, EventType
from apps.oauth.connections.revocation import DISCONNECTED_MESSAGE
from apps.oauth.connections.selectors import connection_list
from apps.oauth.models import AccessToken, Application, Grant, RefreshToken
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory
from tests.support.oauth import (
    BASE_URL,
    MCP,
    disconnect,
    exchange,
    get_code,
    issue,
    make_client,
    me,
    pkce,
    refresh,
    signed_in,
    tokens_for,
)

pytestmark = pytest.mark.django_db


# -- session -------------------------------------------------------------------


def test_list_without_session_is_invalid_token_asking_to_sign_in():
    response = Client().get(BASE_URL)
    body = assert_error(response, 401, "invalid_token")
    assert body["type"] == "authentication_error"
    assert "Sign in" in body["message"]
    assert 'error="invalid_token"' in response["WWW-Authenticate"]
    assert "resource_metadata=" in response["WWW-Authenticate"]


def test_delete_without_session_is_invalid_token_and_changes_nothing(user):
    app = make_client()
    tokens = issue(user, app)
    response = disconnect(Client(), app.client_id)
    assert_error(response, 401, "invalid_token")
    assert me(tokens["access_token"]).status_code == 200


def test_bearer_token_is_not_a_session(user):
    app = make_client()
    tokens = issue(user, app)
    response = Client().get(BASE_URL, HTTP_AUTHORIZATION=f"Bearer {tokens['access_token']}")
    assert_error(response, 401, "invalid_token")


def test_delete_needs_the_csrf_header(user):
    app = make_client()
    tokens = issue(user, app)
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    assert_error(disconnect(browser, app.client_id), 403, "forbidden")
    assert me(tokens["access_token"]).status_code == 200

    browser.get("/settings/connected-apps")  # sets the CSRF cookie
    csrf = browser.cookies["csrftoken"].value
    assert disconnect(browser, app.client_id, HTTP_X_CSRFTOKEN=csrf).status_code == 200
    assert me(tokens["access_token"]).status_code == 401


def test_wrong_methods_are_refused_in_the_envelope(user):
    browser = signed_in(user)
    response = browser.post(BASE_URL)
    assert_error(response, 405, "method_not_allowed")
    assert response["Allow"] == "GET, HEAD"
    response = browser.get(f"{BASE_URL}/dcr_x")
    assert_error(response, 405, "method_not_allowed")
    assert response["Allow"] == "DELETE"


# -- listing -------------------------------------------------------------------


def test_list_is_empty_without_connections(user):
    response = signed_in(user).get(BASE_URL)
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    assert response.json() == {"object": "list", "data": [], "has_more": False, "url": BASE_URL}


def test_list_after_a_real_consent_shows_the_app(user):
    app = make_client(name="Example Assistant")
    tokens_for(user, app, scope="rates:read calls:read")

    data = signed_in(user).get(BASE_URL).json()["data"]

    assert len(data) == 1
    entry = data[0]
    assert entry["object"] == "oauth_connection"
    assert entry["client_id"] == app.client_id
    assert entry["name"] == "Example Assistant"
    assert entry["registration"] == "self-registered"
    assert entry["redirect_host"] == "client.example.com"
    assert [s["scope"] for s in entry["scopes"]] == ["rates:read", "calls:read"]
    assert (
        entry["scopes"][0]["description"]
        == "See what calls cost per minute to a number or a country, from the published price list."
    )
    assert entry["resources"] == ["http://testserver/v1"]
    now = int(timezone.now().timestamp())
    assert now - 60 <= entry["first_authorized"] <= entry["last_used"] <= now + 1


def test_first_authorized_and_last_used_follow_the_tokens(user):
    app = make_client()
    tokens = tokens_for(user, app)
    first = RefreshToken.objects.get(user=user, application=app)
    earlier = timezone.now() - timedelta(days=3)
    RefreshToken.objects.filter(pk=first.pk).update(created=earlier)

    response = refresh(Client(), app, tokens["refresh_token"])
    assert response.status_code == 200, response.content

    (entry,) = signed_in(user).get(BASE_URL).json()["data"]
    assert entry["first_authorized"] == int(earlier.timestamp())
    assert entry["last_used"] > entry["first_authorized"] + 2 * 24 * 3600


def test_list_shows_only_the_users_own_live_connections(user):
    mine, theirs, gone, expired = make_client(name="Mine"), make_client(name="Theirs"), make_client(), make_client()
    issue(user, mine)
    issue(UserFactory(), theirs)
    issue(user, gone)
    RefreshToken.objects.filter(application=gone).update(revoked=timezone.now())
    issue(user, expired)
    RefreshToken.objects.filter(application=expired).update(expires=timezone.now() - timedelta(seconds=1))

    data = signed_in(user).get(BASE_URL).json()["data"]
    assert [entry["name"] for entry in data] == ["Mine"]


def test_list_merges_families_and_orders_by_last_use(user):
    older, newer = make_client(name="Older"), make_client(name="Newer")
    issue(user, older, scope="rates:read", now=timezone.now() - timedelta(hours=2))
    issue(user, older, scope="calls:read", resource=MCP)
    issue(user, newer, now=timezone.now() + timedelta(seconds=5))

    data = signed_in(user).get(BASE_URL).json()["data"]
    assert [entry["name"] for entry in data] == ["Newer", "Older"]
    assert [s["scope"] for s in data[1]["scopes"]] == ["rates:read", "calls:read"]
    assert data[1]["resources"] == ["http://testserver/mcp", "http://testserver/v1"]


def test_listing_costs_three_queries(user, django_assert_num_queries):
    for _ in range(3):
        issue(user, make_client())
    with django_assert_num_queries(3):
        assert len(connection_list(user=user)) == 3


# -- disconnect ----------------------------------------------------------------


def test_disconnect_kills_access_and_refresh_tokens_of_that_client_only(user):
    app, other_app = make_client(name="Gone"), make_client(name="Kept")
    stranger = UserFactory()
    mine = tokens_for(user, app)
    second_family = tokens_for(user, app)
    kept = tokens_for(user, other_app)
    strangers = tokens_for(stranger, app)
    browser = signed_in(user)

    response = disconnect(browser, app.client_id)

    assert response.status_code == 200, response.content
    assert response.json() == {
        "object": "oauth_connection",
        "client_id": app.client_id,
        "name": "Gone",
        "deleted": True,
    }
    for family in (mine, second_family):
        body = assert_error(me(family["access_token"]), 401, "invalid_token")
        assert body["message"] == DISCONNECTED_MESSAGE
        assert "Reconnect" in body["message"]
        response = refresh(Client(), app, family["refresh_token"])
        assert response.status_code == 400
        assert response.json()["error"] == "invalid_grant"
    # The other app of the same user, and the same app of another user, are untouched.
    assert me(kept["access_token"]).status_code == 200
    assert refresh(Client(), other_app, kept["refresh_token"]).status_code == 200
    assert me(strangers["access_token"]).status_code == 200
    assert refresh(Client(), app, strangers["refresh_token"]).status_code == 200
    assert [entry["name"] for entry in browser.get(BASE_URL).json()["data"]] == ["Kept"]


def test_disconnect_also_voids_a_code_not_yet_exchanged(user):
    app = make_client()
    issue(user, app)
    browser = signed_in(user)
    codes = []
    for _ in range(12):
        verifier, challenge = pkce()
        codes.append((get_code(browser, app, challenge), verifier))

    assert disconnect(browser, app.client_id).status_code == 200

    caller = Client()
    # Beyond the 10/min failed exchanges of one address: a voided code is not a guess.
    for code, verifier in codes:
        response = exchange(caller, app, code, verifier)
        assert response.status_code == 400
        assert response.json()["error"] == "invalid_grant"
        assert "reconnect" in response.json()["error_description"]
    assert exchange(caller, app, "not-a-code", "v" * 43).status_code == 400


def test_disconnect_writes_one_audit_entry_in_the_same_transaction(user):
    app = make_client(name="Gone")
    tokens = issue(user, app)
    browser = signed_in(user)

    response = disconnect(browser, app.client_id, REMOTE_ADDR="203.0.113.9")

    (event,) = AuditEvent.objects.all()
    assert event.event_type == EventType.OAUTH_CONNECTION_REVOKED
    assert event.user == user
    assert (event.actor_type, event.actor_id) == ("user", user.pk)
    assert event.client_id == app.client_id
    assert event.ip_address == "203.0.113.9"
    assert event.request_id == response["Request-Id"]
    # The tokens carry the same instant as the entry: that is how a later 401 knows why.
    assert AccessToken.objects.get(token_checksum__isnull=False, user=user).expires == event.created
    assert RefreshToken.objects.get(user=user).revoked == event.created
    assert me(tokens["access_token"]).status_code == 401


@pytest.mark.parametrize(
    "case", ["unknown", "never-connected", "already-disconnected", "another-users", "only-an-expired-code"]
)
def test_disconnect_of_no_connection_is_connection_not_found_and_writes_nothing(user, case):
    app = make_client()
    browser = signed_in(user)
    client_id = app.client_id
    if case == "unknown":
        client_id = "dcr_doesnotexist"
    elif case == "already-disconnected":
        issue(user, app)
        assert disconnect(browser, client_id).status_code == 200
        AuditEvent.objects.all().delete()
    elif case == "another-users":
        issue(UserFactory(), app)
    elif case == "only-an-expired-code":
        # A disconnect voids expired unused codes too, but only codes within their lifetime are live.
        get_code(browser, app, pkce()[1])
        Grant.objects.update(expires=timezone.now() - timedelta(seconds=1))
        AuditEvent.objects.all().delete()  # the consent's own entry

    body = assert_error(disconnect(browser, client_id), 404, "connection_not_found", param="client_id")
    assert body["type"] == "not_found_error"
    assert body["param"] == "client_id"
    assert not AuditEvent.objects.exists()
    assert not Grant.objects.filter(used_at__isnull=False).exists()


def test_disconnect_a_client_identified_by_its_metadata_url(user):
    url = "https://assistant.example.com/oauth/client.json"
    app = make_client(client_id=url, registration_source=Application.RegistrationSource.CIMD)
    tokens = issue(user, app)
    browser = signed_in(user)
    (entry,) = browser.get(BASE_URL).json()["data"]
    assert entry["registration"] == "registered by URL"

    assert disconnect(browser, quote(url, safe="")).status_code == 200
    assert me(tokens["access_token"]).status_code == 401


def test_a_disconnected_token_at_mcp_asks_to_reconnect(user):
    app = make_client()
    tokens = issue(user, app, resource=MCP)
    assert disconnect(signed_in(user), app.client_id).status_code == 200

    response = Client().post(
        "/mcp",
        data='{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        content_type="application/json",
        HTTP_ACCEPT="application/json, text/event-stream",
        HTTP_AUTHORIZATION=f"Bearer {tokens['access_token']}",
    )
    body = assert_error(response, 401, "invalid_token")
    assert body["message"] == DISCONNECTED_MESSAGE
    assert "oauth-protected-resource/mcp" in response["WWW-Authenticate"]


def test_a_naturally_expired_token_does_not_ask_to_reconnect(user):
    app = make_client()
    tokens = issue(user, app)
    AccessToken.objects.filter(user=user).update(expires=timezone.now() - timedelta(seconds=1))
    body = assert_error(me(tokens["access_token"]), 401, "invalid_token")
    assert "Reconnect" not in body["message"]


# -- lockouts (docs/spec.md 8.2, 8.3) ------------------------------------------------------


def test_presenting_a_disconnected_token_spends_no_failed_bearer_budget(user):
    app = make_client()
    tokens = issue(user, app)
    assert disconnect(signed_in(user), app.client_id).status_code == 200
    caller = Client()

    # Far beyond the 60/min failed-bearer budget of one address: still 401, never 429.
    for _ in range(70):
        assert me(tokens["access_token"], caller).status_code == 401

    # The budget is untouched: an unknown token is still answered 401, not 429.
    assert me("sat_" + "x" * 43, caller).status_code == 401


def test_unknown_tokens_do_spend_the_budget():
    caller = Client()
    statuses = {me("sat_" + "y" * 43, caller).status_code for _ in range(70)}
    assert statuses == {401, 429}


def test_a_disconnected_refresh_token_asks_to_reconnect_and_is_not_a_failed_exchange(user):
    app = make_client()
    # One family per attempt: the per-address failure budget is in play here; one family
    # presented again and again: tests/ratelimit/test_oauth_lockouts.py.
    families = [issue(user, app) for _ in range(15)]
    assert disconnect(signed_in(user), app.client_id).status_code == 200
    caller = Client()

    # Beyond the 10/min failed exchanges of one address (docs/spec.md 8.3): never backed off.
    for tokens in families:
        response = refresh(caller, app, tokens["refresh_token"])
        assert response.status_code == 400
        assert response.json()["error"] == "invalid_grant"
        assert "reconnect" in response.json()["error_description"]

    response = refresh(caller, app, "srt_" + "z" * 43)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"


def test_unknown_refresh_tokens_do_back_off_the_source(user):
    app = make_client()
    caller = Client()
    statuses = [refresh(caller, app, "srt_" + "q" * 43).status_code for _ in range(15)]
    assert 429 in statuses


def test_a_rotated_refresh_token_reused_after_a_disconnect_still_counts_as_reuse(user):
    app = make_client()
    tokens = tokens_for(user, app)
    assert refresh(Client(), app, tokens["refresh_token"]).status_code == 200  # rotates: old one revoked
    assert disconnect(signed_in(user), app.client_id).status_code == 200

    response = refresh(Client(), app, tokens["refresh_token"])
    assert response.status_code == 400
    assert "already used" in response.json()["error_description"]


@pytest.mark.parametrize(
    ("client_id", "status", "code"),
    [
        # Control characters are refused before any lookup (apps/core/inputs.py).
        ("dcr_%00abc", 400, "invalid_request"),
        ("dcr_%01x", 400, "invalid_request"),
        ("x" * 300, 404, "connection_not_found"),
    ],
)
def test_odd_client_ids_are_connection_not_found_never_a_500(user, client_id, status, code):
    browser = signed_in(user)
    assert_error(disconnect(browser, client_id), status, code, param="client_id")
    response = browser.post("/settings/connected-apps/disconnect", {"client_id": "dcr_\x00abc"}, follow=True)
    assert response.status_code == 200
