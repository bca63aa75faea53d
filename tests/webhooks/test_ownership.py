"""Who manages an endpoint and what ends it; what each delivery checks again (docs/design.md "Webhooks").

Any credential of the account with webhooks:manage manages the account's endpoints
in its mode; the key or app connection that made an endpoint decides only when it
is disabled: revoking that key, disconnecting that app, or a password reset. At
each delivery the type's scope (held by that credential now) and the sharing
switch are checked again.
"""

import json

import pytest
from django.test import Client
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.security import PASSWORD_EVENTS, sharing_update, user_credentials_revoke_all
from apps.apikeys.services import apikey_revoke
from apps.jobs.public import run_due
from apps.oauth.connections.services import connection_revoke
from apps.webhooks.models import Delivery
from apps.webhooks.public import publish
from tests.support.oauth import issue, make_client, refresh
from tests.support.webhook_history import make_endpoint
from tests.support.webhooks import Caller, key_caller

pytestmark = pytest.mark.django_db

CALL = {"id": "call_1", "object": "call", "status": "completed"}


def state(caller, endpoint_id):
    body = caller.get(f"/v1/webhook_endpoints/{endpoint_id}").json()
    return body["status"], body["disabled_reason"]


@pytest.fixture
def app(db):
    return make_client()


@pytest.fixture
def oauth(owner, app):
    tokens = issue(owner, app, scope="webhooks:manage calls:read transcripts:read")
    return tokens, Caller(tokens["access_token"])


class TestEndedCredentials:
    def test_revoking_the_key_disables_its_endpoints_only(self, owner, test_key, receiver):
        key, caller = test_key
        mine = make_endpoint(caller, receiver.url())
        _other, colleague = key_caller(owner)
        theirs = make_endpoint(colleague, receiver.url())
        apikey_revoke(key=key)
        assert state(colleague, mine["id"]) == ("disabled", "credential_revoked")
        assert state(colleague, theirs["id"]) == ("enabled", None)
        publish(owner, "call.ended", CALL, livemode=False)
        run_due()
        assert len(receiver.requests) == 1  # the colleague's endpoint only

    def test_disconnecting_the_app_disables_its_endpoints(self, owner, oauth, app, live_receiver):
        _tokens, caller = oauth
        endpoint = make_endpoint(caller, live_receiver.url(host="hooks.example.test"))
        assert endpoint["livemode"] is True
        _key, colleague = key_caller(owner, livemode=True)
        connection_revoke(user=owner, client_id=app.client_id)
        assert state(colleague, endpoint["id"]) == ("disabled", "credential_revoked")

    def test_a_password_reset_disables_every_endpoint_of_the_account(
        self, owner, oauth, test_key, live_receiver, receiver
    ):
        _tokens, oauth_caller = oauth
        _key, key_caller_ = test_key
        by_app = make_endpoint(oauth_caller, live_receiver.url(host="hooks.example.test"))
        by_key = make_endpoint(key_caller_, receiver.url())
        user_credentials_revoke_all(user=owner, event_type=PASSWORD_EVENTS[0])
        _key, fresh = key_caller(User.objects.get(pk=owner.pk))
        _key, fresh_live = key_caller(User.objects.get(pk=owner.pk), livemode=True)
        assert state(fresh, by_key["id"]) == ("disabled", "credential_revoked")
        assert state(fresh_live, by_app["id"]) == ("disabled", "credential_revoked")

    def test_an_endpoint_whose_credential_ended_cannot_be_enabled_again(self, owner, test_key, receiver):
        key, caller = test_key
        endpoint = make_endpoint(caller, receiver.url())
        apikey_revoke(key=key)
        _key, colleague = key_caller(owner)
        response = colleague.post(f"/v1/webhook_endpoints/{endpoint['id']}", {"disabled": False})
        assert response.status_code == 400
        assert response.json()["error"]["param"] == "disabled"

    def test_a_pending_attempt_of_an_ended_credential_is_not_sent(self, owner, test_key, receiver):
        key, caller = test_key
        endpoint = make_endpoint(caller, receiver.url())
        publish(owner, "call.ended", CALL, livemode=False)
        apikey_revoke(key=key)
        run_due()
        assert receiver.requests == []
        [attempt] = Delivery.objects.filter(endpoint_id=endpoint["id"])
        assert attempt.status == "skipped"

    def test_an_expired_key_disables_at_the_next_attempt(self, owner, receiver):
        key, caller = key_caller(owner)
        endpoint = make_endpoint(caller, receiver.url())
        publish(owner, "call.ended", CALL, livemode=False)
        type(key).objects.filter(pk=key.pk).update(expires_at=timezone.now())
        run_due()
        assert receiver.requests == []
        _key, colleague = key_caller(owner)
        assert state(colleague, endpoint["id"]) == ("disabled", "credential_revoked")


class TestRecheckAtDelivery:
    def test_a_scope_lost_by_a_narrowing_refresh_stops_that_type(self, owner, oauth, app, live_receiver):
        tokens, caller = oauth
        make_endpoint(caller, live_receiver.url(host="hooks.example.test"), events=["call.ended"])
        publish(owner, "call.ended", CALL, livemode=True)  # made while calls:read is held
        narrowed = refresh(Client(), app, tokens["refresh_token"], scope="webhooks:manage")
        assert narrowed.status_code == 200, narrowed.content
        run_due()
        assert live_receiver.requests == []
        assert Delivery.objects.get().status == "skipped"
        publish(owner, "call.ended", CALL, livemode=True)  # made after: no attempt at all
        assert Delivery.objects.count() == 1

    def test_the_scope_still_held_keeps_delivering(self, owner, oauth, app, live_receiver):
        tokens, caller = oauth
        make_endpoint(caller, live_receiver.url(host="hooks.example.test"), events=["call.ended"])
        refresh(Client(), app, tokens["refresh_token"], scope="webhooks:manage calls:read")
        publish(owner, "call.ended", CALL, livemode=True)
        run_due()
        assert len(live_receiver.requests) == 1

    def test_the_call_summaries_switch_is_checked_at_each_attempt(self, owner, caller, receiver):
        make_endpoint(caller, receiver.url(), events=["transcript.completed"])
        transcript = {"id": "tr_1", "object": "transcript", "call": "call_1", "status": "completed"}
        publish(owner, "transcript.completed", transcript, livemode=False)  # switch off: no attempt
        assert Delivery.objects.count() == 0
        sharing_update(user=owner, call_summaries=True, message_reading=False)
        publish(owner, "transcript.completed", transcript, livemode=False)
        sharing_update(user=owner, call_summaries=False, message_reading=False)
        run_due()
        assert receiver.requests == []
        assert Delivery.objects.get().status == "skipped"
        sharing_update(user=owner, call_summaries=True, message_reading=False)
        publish(owner, "transcript.completed", transcript, livemode=False)
        run_due()
        assert json.loads(receiver.requests[0].body)["type"] == "transcript.completed"

    def test_a_registered_gate_is_checked_at_each_attempt(self, owner, caller, receiver):
        from apps.webhooks import events

        opted_in = {"num_1": True}
        registered = events._gates.get("message.received")  # the messages app's own gate
        events.register_gate("message.received", lambda *, user_id, livemode, data: opted_in[data["number"]])
        try:
            make_endpoint(caller, receiver.url(), events=["message.received"])
            message = {"id": "msg_1", "object": "message", "number": "num_1", "created": 1}
            publish(owner, "message.received", message, livemode=False)
            opted_in["num_1"] = False
            run_due()
            assert receiver.requests == []
            opted_in["num_1"] = True
            publish(owner, "message.received", message, livemode=False)
            run_due()
            assert len(receiver.requests) == 1
        finally:
            events.register_gate("message.received", registered)


class TestConnectedAppsPage:
    def test_an_apps_endpoints_are_listed_for_its_connection(self, owner, oauth, app, live_receiver):
        from apps.webhooks.public import endpoints_of_connection

        _tokens, caller = oauth
        endpoint = make_endpoint(caller, live_receiver.url(host="hooks.example.test"))
        assert [e.id for e in endpoints_of_connection(user_id=owner.pk, client_id=app.client_id)] == [endpoint["id"]]
