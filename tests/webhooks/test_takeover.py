"""An endpoint belongs to whoever last aimed it (docs/webhooks "Who owns an endpoint").

A key or app that may manage webhooks but not read calls tries to take over another
credential's endpoint: aim it at its own receiver and keep receiving the account's calls,
even after it is revoked. Re-aiming refuses the types it cannot read; taking the endpoint
over makes it the owner, so its scopes decide each delivery and its end disables the
endpoint; the change of owner is on Activity, and Connected apps lists the endpoint under
the app that now owns it.
"""

import json

import pytest

from apps.apikeys.services import apikey_revoke
from apps.audit.models import AuditEvent, EventType
from apps.jobs.public import run_due
from apps.oauth.connections.services import connection_revoke
from apps.webhooks.models import Delivery
from apps.webhooks.public import endpoints_of_connection, publish
from tests.support.envelope import assert_error
from tests.support.oauth import issue, make_client, signed_in
from tests.support.receivers import Receiver
from tests.support.webhooks import Caller, key_caller

pytestmark = pytest.mark.django_db

CALL = {"id": "call_1", "object": "call", "status": "in_progress", "to": "+12025550100", "price": 1200}
MANAGE_ONLY = ["webhooks:manage"]


@pytest.fixture
def attacker_receiver():
    server = Receiver()
    yield server
    server.close()


def make_endpoint(caller, url, events=("call.in_progress", "call.ended")):
    response = caller.post("/v1/webhook_endpoints", {"url": url, "enabled_events": list(events)})
    assert response.status_code == 201, response.content
    return response.json()


def state(caller, endpoint_id):
    body = caller.get(f"/v1/webhook_endpoints/{endpoint_id}").json()
    return body["url"], body["enabled_events"], body["status"], body["disabled_reason"]


def types_received(receiver) -> list[str]:
    return [json.loads(body)["type"] for body in receiver.bodies()]


class TestAKeyThatCannotReadCalls:
    @pytest.fixture
    def k1(self, owner):
        return key_caller(owner)

    @pytest.fixture
    def k2(self, owner):
        return key_caller(owner, scopes=MANAGE_ONLY)

    def test_re_aiming_refuses_the_types_it_cannot_read_and_changes_nothing(self, k1, k2, receiver, attacker_receiver):
        _key, first = k1
        _key, second = k2
        endpoint = make_endpoint(first, receiver.url())
        assert second.get("/v1/calls").status_code == 403
        response = second.post(f"/v1/webhook_endpoints/{endpoint['id']}", {"url": attacker_receiver.url()})
        assert_error(response, 400, "invalid_request", param="enabled_events")
        assert "calls:read" in response.json()["error"]["message"]
        response = second.post(
            f"/v1/webhook_endpoints/{endpoint['id']}",
            {"url": attacker_receiver.url(), "enabled_events": ["call.ended"]},
        )
        assert_error(response, 400, "invalid_request", param="enabled_events")
        assert state(first, endpoint["id"]) == (receiver.url(), ["call.in_progress", "call.ended"], "enabled", None)
        assert not AuditEvent.objects.filter(event_type=EventType.WEBHOOK_ENDPOINT_OWNER_CHANGED).exists()

    def test_taking_it_over_with_every_type_delivers_only_what_the_new_owner_can_read(
        self, owner, k1, k2, receiver, attacker_receiver
    ):
        first_key, first = k1
        second_key, second = k2
        endpoint = make_endpoint(first, receiver.url())
        publish(owner, "call.in_progress", CALL, livemode=False)  # pending while K1 owns it
        response = second.post(
            f"/v1/webhook_endpoints/{endpoint['id']}", {"url": attacker_receiver.url(), "enabled_events": ["*"]}
        )
        assert response.status_code == 200, response.content
        rotated = second.post(f"/v1/webhook_endpoints/{endpoint['id']}/rotate_secret", {"expires_in": 0})
        assert rotated.status_code == 200
        publish(owner, "call.ended", CALL, livemode=False)
        second.post(f"/v1/webhook_endpoints/{endpoint['id']}/test")
        run_due()
        # The attempt scheduled under K1 is re-checked against K2 and skipped; no call.ended is even tried.
        assert types_received(attacker_receiver) == ["ping"]
        assert receiver.requests == []
        skipped = Delivery.objects.get(event__type="call.in_progress")
        assert (skipped.status, skipped.error) == ("skipped", "the endpoint's owner may not receive call.in_progress")
        assert not Delivery.objects.filter(event__type="call.ended").exists()

        # The change of owner is on Activity, naming the key it was taken from.
        [row] = AuditEvent.objects.filter(event_type=EventType.WEBHOOK_ENDPOINT_OWNER_CHANGED)
        assert row.key_id == second_key.pk
        assert row.data["previous_owner"] == {"kind": "api_key", "id": first_key.pk}

        # K1's end no longer touches it; its owner's end disables it.
        apikey_revoke(key=first_key)
        assert state(second, endpoint["id"])[2:] == ("enabled", None)
        apikey_revoke(key=second_key)
        _key, colleague = key_caller(owner)
        assert state(colleague, endpoint["id"])[2:] == ("disabled", "credential_revoked")
        publish(owner, "call.ended", CALL, livemode=False)
        run_due()
        assert types_received(attacker_receiver) == ["ping"]

    def test_a_description_or_the_switch_changes_no_owner(self, owner, k1, k2, receiver):
        first_key, first = k1
        _key, second = k2
        endpoint = make_endpoint(first, receiver.url())
        assert second.post(f"/v1/webhook_endpoints/{endpoint['id']}", {"description": "mine"}).status_code == 200
        assert second.post(f"/v1/webhook_endpoints/{endpoint['id']}", {"disabled": True}).status_code == 200
        assert second.post(f"/v1/webhook_endpoints/{endpoint['id']}", {"disabled": False}).status_code == 200
        apikey_revoke(key=first_key)
        assert state(second, endpoint["id"])[2:] == ("disabled", "credential_revoked")

    def test_a_revoked_owners_endpoint_comes_back_only_when_taken_over(self, owner, k1, receiver):
        first_key, first = k1
        endpoint = make_endpoint(first, receiver.url())
        apikey_revoke(key=first_key)
        _key, colleague = key_caller(owner)
        response = colleague.post(f"/v1/webhook_endpoints/{endpoint['id']}", {"disabled": False})
        assert_error(response, 400, "invalid_request", param="disabled")
        response = colleague.post(
            f"/v1/webhook_endpoints/{endpoint['id']}", {"enabled_events": ["call.ended"], "disabled": False}
        )
        assert response.status_code == 200, response.content
        publish(owner, "call.ended", CALL, livemode=False)
        run_due()
        assert types_received(receiver) == ["call.ended"]


class TestAnAppThatCannotReadCalls:
    def test_it_takes_over_a_live_endpoint_is_listed_under_it_and_its_disconnect_disables_it(
        self, owner, live_receiver, dns
    ):
        _key, first = key_caller(owner, livemode=True)
        endpoint = make_endpoint(first, live_receiver.url(host="hooks.example.test"))
        app = make_client(name="Pocket Assistant")
        caller = Caller(issue(owner, app, scope="webhooks:manage")["access_token"])
        dns.answers["attacker.example.test"] = ["127.0.0.1"]
        aimed = live_receiver.url(host="attacker.example.test", path="/stolen")
        response = caller.post(f"/v1/webhook_endpoints/{endpoint['id']}", {"url": aimed})
        assert_error(response, 400, "invalid_request", param="enabled_events")
        response = caller.post(f"/v1/webhook_endpoints/{endpoint['id']}", {"url": aimed, "enabled_events": ["*"]})
        assert response.status_code == 200, response.content

        listed = endpoints_of_connection(user_id=owner.pk, client_id=app.client_id)
        assert [e.id for e in listed] == [endpoint["id"]]
        html = signed_in(owner).get("/settings/connected-apps").content.decode()
        entry = html[html.index(f'data-client-id="{app.client_id}"') :]
        assert endpoint["id"] in entry[: entry.index("</tr>")]

        publish(owner, "call.in_progress", CALL, livemode=True)
        run_due()
        assert live_receiver.requests == []

        connection_revoke(user=owner, client_id=app.client_id)
        assert state(first, endpoint["id"])[2:] == ("disabled", "credential_revoked")
        publish(owner, "call.ended", CALL, livemode=True)
        run_due()
        assert live_receiver.requests == []
