"""Django admin for OAuth clients: search, registration kind, last use,
disable (taking effect everywhere) and verified partners."""

import json

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from apps.oauth.models import Application
from tests.support.factories import PASSWORD, UserFactory
from tests.support.mcp import McpClient
from tests.support.oauth import (
    MCP,
    authorize_params,
    exchange,
    make_client,
    pkce,
    refresh,
    signed_in,
    start,
    tokens_for,
)

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:oauth_application_changelist")


@pytest.fixture
def staff():
    user = UserFactory(email="staff@example.com")
    user.is_staff = True
    user.is_superuser = True
    user.save()
    browser = Client()
    assert browser.login(username=user.email, password=PASSWORD)
    return browser


def self_registered(client=None, name="Example Assistant"):
    response = (client or Client()).post(
        "/oauth/register",
        data=json.dumps(
            {
                "client_name": name,
                "redirect_uris": ["https://client.example.com/callback", "http://127.0.0.1/callback"],
                "application_type": "native",
            }
        ),
        content_type="application/json",
    )
    assert response.status_code == 201
    return Application.objects.get(client_id=response.json()["client_id"])


def act(staff, action, *clients):
    response = staff.post(CHANGELIST, {"action": action, "_selected_action": [str(c.pk) for c in clients]}, follow=True)
    assert response.status_code == 200
    for c in clients:
        c.refresh_from_db()
    return response


class TestChangelist:
    def test_lists_registration_kind_status_and_last_use(self, staff):
        used = self_registered(name="Used App")
        Application.objects.filter(pk=used.pk).update(last_used_at=timezone.now())
        make_client(name="Partner App", verified_partner=True)
        make_client(
            name="Url App",
            client_id="https://url.example/client.json",
            registration_source=Application.RegistrationSource.CIMD,
        )
        page = staff.get(CHANGELIST).content.decode()
        for text in ("Used App", "Partner App", "Url App", "self-registered", "verified partner", "registered by URL"):
            assert text in page
        assert "Last used at" in page or "last used at" in page.lower()
        assert "active" in page

    def test_last_use_is_stamped_by_token_requests(self, staff, user):
        client = self_registered(name="Busy App")
        assert client.last_used_at is None
        tokens_for(user, client)
        client.refresh_from_db()
        assert client.last_used_at is not None
        page = staff.get(CHANGELIST, {"q": "Busy App"}).content.decode()
        assert "Busy App" in page
        row = page.split(f'<td class="field-client_id">{client.client_id}', 1)[1].split("</tr>", 1)[0]
        # Both dates of the row are rendered (last used, then created); an empty one would be "-".
        assert row.count(str(client.last_used_at.year)) == 2

    def test_search_by_name_client_id_and_redirect_host(self, staff):
        wanted = self_registered(name="Findable Assistant")
        other = make_client(name="Other", redirect_uris="https://other.example/cb")
        for query in ("Findable", wanted.client_id, "client.example.com"):
            page = staff.get(CHANGELIST, {"q": query}).content.decode()
            assert wanted.client_id in page
            assert other.client_id not in page

    def test_filter_disabled(self, staff):
        disabled = make_client(name="Gone", disabled_at=timezone.now())
        active = make_client(name="Here")
        page = staff.get(CHANGELIST, {"status": "disabled"}).content.decode()
        assert disabled.client_id in page and active.client_id not in page

    def test_detail_is_read_only_and_shows_no_secret(self, staff):
        client = self_registered()
        page = staff.get(reverse("admin:oauth_application_change", args=[client.pk])).content.decode()
        assert client.client_id in page
        assert 'name="redirect_uris"' not in page
        assert 'name="verified_partner"' not in page
        assert "client_secret" not in page
        assert "skip_authorization" not in page

    def test_no_manual_creation(self, staff):
        assert staff.get(reverse("admin:oauth_application_add")).status_code == 403

    def test_staff_only(self, user):
        browser = signed_in(user)
        response = browser.get(CHANGELIST)
        assert response.status_code == 302
        assert "/admin/login/" in response["Location"]


class TestDisable:
    def test_disable_and_enable_actions(self, staff):
        client = self_registered()
        act(staff, "disable_clients", client)
        assert client.is_disabled
        act(staff, "enable_clients", client)
        assert not client.is_disabled

    def test_actions_are_kept_in_the_admin_history(self, staff):
        from django.contrib.admin.models import LogEntry

        client = self_registered()
        act(staff, "disable_clients", client)
        entry = LogEntry.objects.get(object_id=str(client.pk))
        assert entry.user.email == "staff@example.com"
        assert "Disabled" in entry.get_change_message()

    def test_authorize_shows_the_error_page(self, staff, user):
        client = self_registered()
        act(staff, "disable_clients", client)
        _verifier, challenge = pkce()
        response = signed_in(user).get("/oauth/authorize", authorize_params(client, challenge))
        assert response.status_code == 400
        assert "Location" not in response
        assert "invalid_client" in response.content.decode()

    def test_open_transaction_reads_client_disabled(self, staff, user):
        client = self_registered()
        browser = signed_in(user)
        _verifier, challenge = pkce()
        txn_id = start(browser, client, challenge)
        assert browser.get(f"/api/oauth/transactions/{txn_id}").status_code == 200
        act(staff, "disable_clients", client)
        response = browser.get(f"/api/oauth/transactions/{txn_id}")
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "client_disabled"

    def test_its_tokens_stop_working(self, staff, user):
        client = self_registered()
        v1 = tokens_for(user, client)
        mcp = tokens_for(user, client, resource=MCP)
        api = Client()
        assert api.get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {v1['access_token']}").status_code == 200

        act(staff, "disable_clients", client)

        response = api.get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {v1['access_token']}")
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "invalid_token"
        tools_list = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        response = McpClient(mcp["access_token"]).post(tools_list, headers={"Accept": "application/json"})
        assert response.status_code == 401
        response = refresh(api, client, v1["refresh_token"])
        assert response.status_code == 400
        assert response.json()["error"] == "invalid_grant"

    def test_a_code_issued_before_disabling_cannot_be_exchanged(self, staff, user):
        from tests.support.oauth import get_code

        client = self_registered()
        verifier, challenge = pkce()
        code = get_code(signed_in(user), client, challenge)
        act(staff, "disable_clients", client)
        response = exchange(Client(), client, code, verifier)
        assert response.status_code == 400
        assert response.json()["error"] == "invalid_grant"

    def test_other_clients_are_unaffected(self, staff, user):
        disabled = self_registered(name="Bad")
        fine = self_registered(name="Good")
        tokens = tokens_for(user, fine)
        act(staff, "disable_clients", disabled)
        assert Client().get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {tokens['access_token']}").status_code == 200


class TestVerifiedPartner:
    def test_mark_and_unmark(self, staff):
        client = self_registered()
        assert client.registration_kind == "self-registered"
        act(staff, "mark_verified_partner", client)
        assert client.verified_partner
        assert client.registration_kind == "verified partner"
        assert not client.is_self_registered
        act(staff, "unmark_verified_partner", client)
        assert client.registration_kind == "self-registered"

    def test_shown_so_on_the_consent_page_and_transaction(self, staff, user):
        client = self_registered()
        act(staff, "mark_verified_partner", client)
        browser = signed_in(user)
        _verifier, challenge = pkce()
        txn_id = start(browser, client, challenge, scope="rates:read calls:place")
        body = browser.get(f"/api/oauth/transactions/{txn_id}").json()
        assert body["client"]["registration"] == "verified partner"
        # A verified partner asking a sensitive scope needs no second confirmation.
        assert body["confirmation_required"] is False
        page = browser.get(f"/oauth/consent?transaction={txn_id}").content.decode()
        assert "Verified partner" in page
