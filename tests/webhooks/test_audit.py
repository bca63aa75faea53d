"""Webhook endpoint writes through an app or key are sensitive actions: one audit event each,
shown on Activity and on the app's entry on Connected apps (docs/design.md "Webhooks").
The event names the receiver's host, never the whole URL nor a secret."""

import pytest

from apps.audit.models import AuditEvent, EventType
from tests.support.oauth import issue, make_client, signed_in
from tests.support.webhooks import Caller

pytestmark = pytest.mark.django_db

LIVE_URL = "https://hooks.example.com/in?token=receiver-own-token"
TEST_URL = "http://127.0.0.1:9/hooks?token=receiver-own-token"
WEBHOOK_TYPES = (
    EventType.WEBHOOK_ENDPOINT_CREATED,
    EventType.WEBHOOK_ENDPOINT_UPDATED,
    EventType.WEBHOOK_ENDPOINT_DELETED,
    EventType.WEBHOOK_ENDPOINT_SECRET_ROLLED,
)


def webhook_events():
    return list(AuditEvent.objects.filter(event_type__in=WEBHOOK_TYPES).order_by("created", "id"))


def entry(html: str, client_id: str) -> str:
    start = html.index(f'data-client-id="{client_id}"')
    return html[start : html.index("</tr>", start)]


@pytest.fixture
def app(db):
    return make_client(name="Hook Assistant")


@pytest.fixture
def app_caller(owner, app, dns):
    return Caller(issue(owner, app, scope="webhooks:manage calls:read")["access_token"])


def create(caller, url):
    response = caller.post("/v1/webhook_endpoints", {"url": url, "enabled_events": ["call.ended"]})
    assert response.status_code == 201, response.content
    return response.json()


def run_all_four(caller, url):
    """Create, change, rotate and delete one endpoint; returns the endpoint and every secret seen."""
    endpoint = create(caller, url)
    path = f"/v1/webhook_endpoints/{endpoint['id']}"
    assert caller.post(path, {"description": "Billing sync"}).status_code == 200
    rotated = caller.post(f"{path}/rotate_secret", {"expires_in": 0})
    assert rotated.status_code == 200
    assert caller.delete(path).status_code == 200
    return endpoint, [endpoint["secret"], rotated.json()["secret"]]


class TestEachWriteIsOneEvent:
    def test_through_an_api_key(self, owner, test_key):
        key, caller = test_key
        endpoint, secrets = run_all_four(caller, TEST_URL)

        events = webhook_events()
        assert [e.event_type for e in events] == [
            EventType.WEBHOOK_ENDPOINT_CREATED,
            EventType.WEBHOOK_ENDPOINT_UPDATED,
            EventType.WEBHOOK_ENDPOINT_SECRET_ROLLED,
            EventType.WEBHOOK_ENDPOINT_DELETED,
        ]
        assert [e.data["summary"] for e in events] == [
            "created a webhook endpoint for 127.0.0.1:9",
            "changed a webhook endpoint for 127.0.0.1:9 (description)",
            "re-keyed a webhook endpoint for 127.0.0.1:9",
            "deleted a webhook endpoint for 127.0.0.1:9",
        ]
        for event in events:
            assert (event.user_id, event.key_id, event.client_id) == (owner.pk, key.id, "")
            assert event.data["endpoint"] == endpoint["id"] and event.data["livemode"] is False
            assert all(secret not in str(event.data) for secret in secrets)
            assert "receiver-own-token" not in str(event.data)

    def test_through_an_apps_token(self, owner, app, app_caller):
        run_all_four(app_caller, LIVE_URL)

        events = webhook_events()
        assert len(events) == 4
        assert {(e.user_id, e.client_id, e.key_id) for e in events} == {(owner.pk, app.client_id, "")}
        assert events[0].data["summary"] == "created a webhook endpoint for hooks.example.com"
        assert all(e.data["livemode"] is True for e in events)

    def test_disabling_enabling_and_moving_say_what_changed(self, caller):
        endpoint = create(caller, TEST_URL)
        path = f"/v1/webhook_endpoints/{endpoint['id']}"
        caller.post(path, {"disabled": True})
        caller.post(path, {"disabled": True})  # already disabled: nothing changes, nothing recorded
        caller.post(path, {"disabled": False})
        caller.post(path, {"url": "http://localhost:9/elsewhere", "enabled_events": ["*"]})
        updates = [e.data for e in webhook_events() if e.event_type == EventType.WEBHOOK_ENDPOINT_UPDATED]
        assert [u["summary"] for u in updates] == [
            "disabled a webhook endpoint for 127.0.0.1:9",
            "enabled a webhook endpoint for 127.0.0.1:9",
            "changed a webhook endpoint for 127.0.0.1:9 (enabled_events, url), now localhost:9",
        ]
        assert updates[2]["changed"] == ["enabled_events", "url"]


class TestNothingRecorded:
    def test_a_refused_write_records_nothing(self, caller):
        response = caller.post("/v1/webhook_endpoints", {"url": "ftp://127.0.0.1/x", "enabled_events": ["call.ended"]})
        assert response.status_code == 400
        endpoint = create(caller, TEST_URL)
        assert (
            caller.post(f"/v1/webhook_endpoints/{endpoint['id']}/rotate_secret", {"expires_in": -1}).status_code == 400
        )
        assert [e.event_type for e in webhook_events()] == [EventType.WEBHOOK_ENDPOINT_CREATED]

    def test_an_idempotent_replay_records_nothing_more(self, caller):
        body = {"url": TEST_URL, "enabled_events": ["call.ended"]}
        first = caller.post("/v1/webhook_endpoints", body, HTTP_IDEMPOTENCY_KEY="create-once")
        again = caller.post("/v1/webhook_endpoints", body, HTTP_IDEMPOTENCY_KEY="create-once")
        assert first.status_code == again.status_code == 201
        assert len(webhook_events()) == 1

    def test_a_signed_in_session_cannot_manage_endpoints(self, owner):
        # Endpoints are managed with a bearer credential only: the account holder's session is no way in.
        response = signed_in(owner).post(
            "/v1/webhook_endpoints",
            {"url": TEST_URL, "enabled_events": ["call.ended"]},
            content_type="application/json",
        )
        assert response.status_code == 401
        assert webhook_events() == []


class TestShownToTheOwner:
    def test_an_apps_writes_show_on_activity_and_on_its_entry(self, owner, app, app_caller):
        other = make_client(name="Other Assistant")
        issue(owner, other)
        create(app_caller, LIVE_URL)

        browser = signed_in(owner)
        assert "Created a webhook endpoint for hooks.example.com" in browser.get("/settings/activity").content.decode()
        page = browser.get("/settings/connected-apps").content.decode()
        assert "Created a webhook endpoint for hooks.example.com" in entry(page, app.client_id)
        assert "webhook endpoint for" not in entry(page, other.client_id)

    def test_a_keys_writes_show_on_activity(self, owner, caller):
        run_all_four(caller, TEST_URL)
        page = signed_in(owner).get("/settings/activity").content.decode()
        for line in ("Created", "Changed", "Re-keyed", "Deleted"):
            assert f"{line} a webhook endpoint for 127.0.0.1:9" in page
