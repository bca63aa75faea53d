"""audit_record: ids, stable types, actor kept apart from target, source and request id."""

import re

import pytest
from django.db import transaction
from django.http import HttpResponse
from django.test import RequestFactory

from apps.audit.models import ActorType, AuditEvent, EventType
from apps.audit.services import SYSTEM, actor_client, actor_user, audit_record
from apps.core.middleware import RequestIdMiddleware
from apps.core.request_context import current_request, notes
from tests.support.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_event_types_are_stable_values():
    # Written values are a contract with operators and clients: renaming one is a breaking
    # change, adding one is not.
    assert {t.value for t in EventType} >= {
        "oauth.connection.created",
        "oauth.connection.revoked",
        "oauth.token.refreshed",
        "api_key.created",
        "api_key.rotated",
        "api_key.revoked",
        "account.password_reset",
        "account.password_changed",
        "account.sharing_updated",
        "account.signed_in",
        "account.sign_in_failed",
        "messages.read",
        "call.placed",
        "call.ended",
        "transcript.requested",
        "webhook_endpoint.created",
        "webhook_endpoint.updated",
        "webhook_endpoint.deleted",
        "webhook_endpoint.secret_rolled",
    }


def test_record_outside_a_request_is_by_the_system(user):
    event = audit_record(event_type=EventType.API_KEY_REVOKED, user=user, key_id="key_abc")
    assert re.fullmatch(r"evt_[0-9A-Za-z]{24}", event.id)
    assert (event.actor_type, event.actor_id) == (ActorType.SYSTEM, "")
    assert event.user == user
    assert event.key_id == "key_abc"
    assert event.client_id == ""
    assert event.ip_address is None
    assert event.request_id == ""
    assert event.created is not None


def test_actor_and_target_are_kept_apart(user):
    event = audit_record(
        event_type=EventType.OAUTH_TOKEN_REFRESHED, user=user, actor=actor_client("dcr_app"), client_id="dcr_app"
    )
    assert (event.actor_type, event.actor_id) == ("client", "dcr_app")
    assert event.user_id == user.pk

    admin = UserFactory()
    event = audit_record(event_type=EventType.PASSWORD_CHANGED, user=user, actor=actor_user(admin))
    assert (event.actor_type, event.actor_id, event.user_id) == ("user", admin.pk, user.pk)
    assert audit_record(event_type=EventType.PASSWORD_CHANGED, user=user, actor=SYSTEM).actor_type == "system"


def test_source_address_request_id_and_actor_come_from_the_request(user):
    request = RequestFactory().get("/", REMOTE_ADDR="198.51.100.7")
    notes(request).request_id = "req_123"
    request.user = user
    event = audit_record(event_type=EventType.API_KEY_CREATED, user=user, key_id="key_x", request=request)
    assert event.ip_address == "198.51.100.7"
    assert event.request_id == "req_123"
    assert (event.actor_type, event.actor_id) == ("user", user.pk)


def test_the_request_being_served_is_found_without_passing_it(user):
    request = RequestFactory().get("/", REMOTE_ADDR="2001:db8::1")
    request.user = user
    seen = {}

    def view(req):
        seen["event"] = audit_record(event_type=EventType.API_KEY_CREATED, user=user)
        return HttpResponse("response")

    response = RequestIdMiddleware(view)(request)
    assert seen["event"].ip_address == "2001:db8::1"
    assert seen["event"].request_id == response["Request-Id"]
    assert current_request.get() is None  # reset after the request


def test_a_malformed_source_address_never_fails_the_action(user):
    request = RequestFactory().get("/", REMOTE_ADDR="not-an-ip")
    event = audit_record(event_type=EventType.API_KEY_CREATED, user=user, request=request)
    assert event.ip_address is None


def test_trusted_proxy_forwarded_address_is_recorded(user, settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    request = RequestFactory().get("/", REMOTE_ADDR="10.1.2.3", HTTP_X_FORWARDED_FOR="192.0.2.44")
    assert audit_record(event_type=EventType.API_KEY_CREATED, user=user, request=request).ip_address == "192.0.2.44"


def test_unknown_event_type_is_refused(user):
    with pytest.raises(ValueError):
        audit_record(event_type="something.else", user=user)
    assert not AuditEvent.objects.exists()


def test_a_rolled_back_action_leaves_no_entry(user):
    class Boom(Exception):
        pass

    with pytest.raises(Boom), transaction.atomic():
        audit_record(event_type=EventType.API_KEY_CREATED, user=user)
        raise Boom
    assert not AuditEvent.objects.exists()


def test_entries_survive_the_deletion_of_the_account():
    owner = UserFactory()
    event = audit_record(event_type=EventType.PASSWORD_CHANGED, user=owner, actor=actor_user(owner))
    owner.delete()
    event.refresh_from_db()
    assert event.user is None
    assert event.actor_id.startswith("usr_")


def test_the_user_may_be_given_by_id(user):
    event = audit_record(event_type=EventType.API_KEY_REVOKED, user=user.pk, key_id="key_x")
    assert event.user == user
