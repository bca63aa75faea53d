"""audit_sensitive_action and audit_recent_sensitive_actions: what an app or key did with
sensitive access, recorded for its owner and listed on the app's own entry."""

import pytest

from apps.audit.models import SENSITIVE_EVENT_TYPES, ActorType, EventType
from apps.audit.selectors import audit_recent_sensitive_actions, audit_recent_sensitive_actions_by_app
from apps.audit.services import audit_sensitive_action
from apps.credentials.principal import Principal
from tests.support.factories import UserFactory

pytestmark = pytest.mark.django_db


def app_principal(user, client_id="dcr_pocket"):
    return Principal(kind="oauth", user=user, credential_id=client_id, client_id=client_id, livemode=True)


def key_principal(user, key_id="key_reporting", livemode=False):
    return Principal(kind="api_key", user=user, credential_id=key_id, livemode=livemode)


def test_an_apps_action_names_the_app_as_actor_and_subject(user):
    event = audit_sensitive_action(
        principal=app_principal(user),
        event_type=EventType.MESSAGES_READ,
        summary="read 2 messages of +44 20 7183 8750",
        data={"count": 2},
    )
    event.refresh_from_db()
    assert (event.user_id, event.client_id, event.key_id) == (user.pk, "dcr_pocket", "")
    assert (event.actor_type, event.actor_id) == (ActorType.CLIENT, "dcr_pocket")
    assert event.data == {"count": 2, "summary": "read 2 messages of +44 20 7183 8750", "livemode": True}
    assert event.summary == "read 2 messages of +44 20 7183 8750"
    assert event.label == "Read messages"


def test_a_keys_action_names_the_key(user):
    event = audit_sensitive_action(
        principal=key_principal(user), event_type=EventType.CALL_PLACED, summary="placed a call to +49 151 ..."
    )
    assert (event.client_id, event.key_id) == ("", "key_reporting")
    assert (event.actor_type, event.actor_id) == (ActorType.API_KEY, "key_reporting")
    assert event.data["livemode"] is False


@pytest.mark.parametrize("event_type", [EventType.OAUTH_TOKEN_REFRESHED, "no.such.type"])
def test_only_sensitive_types_are_accepted(user, event_type):
    with pytest.raises(ValueError):
        audit_sensitive_action(principal=app_principal(user), event_type=event_type, summary="did something")


def test_a_summary_is_required(user):
    with pytest.raises(ValueError):
        audit_sensitive_action(principal=app_principal(user), event_type=EventType.CALL_ENDED, summary="")


def test_every_sensitive_type_is_accepted(user):
    for event_type in SENSITIVE_EVENT_TYPES:
        audit_sensitive_action(principal=app_principal(user), event_type=event_type, summary="did it")
    assert len(audit_recent_sensitive_actions(user=user, client_id="dcr_pocket", limit=100)) == len(
        SENSITIVE_EVENT_TYPES
    )


def test_recent_actions_are_the_apps_own_newest_first_and_only_sensitive(user):
    principal = app_principal(user)
    first = audit_sensitive_action(principal=principal, event_type=EventType.CALL_PLACED, summary="placed a call")
    second = audit_sensitive_action(principal=principal, event_type=EventType.CALL_ENDED, summary="ended a call")
    audit_sensitive_action(principal=app_principal(user, "dcr_other"), event_type=EventType.CALL_ENDED, summary="x")
    audit_sensitive_action(principal=app_principal(UserFactory()), event_type=EventType.CALL_ENDED, summary="y")
    from apps.audit.services import actor_client, audit_record

    audit_record(
        event_type=EventType.OAUTH_TOKEN_REFRESHED, user=user, actor=actor_client("dcr_pocket"), client_id="dcr_pocket"
    )
    assert audit_recent_sensitive_actions(user=user, client_id="dcr_pocket") == [second, first]
    assert audit_recent_sensitive_actions(user=user, client_id="dcr_pocket", limit=1) == [second]
    assert set(audit_recent_sensitive_actions_by_app(user=user, client_ids=["dcr_pocket", "dcr_none"])) == {
        "dcr_pocket"
    }


def test_the_unsaved_row_is_the_same_row(user):
    from apps.audit.models import AuditEvent
    from apps.audit.services import audit_sensitive_event

    event = audit_sensitive_event(
        principal=app_principal(user), event_type=EventType.CALL_ENDED, summary="ended a call"
    )
    assert not AuditEvent.objects.exists()
    event.save(force_insert=True)
    assert audit_recent_sensitive_actions(user=user, client_id="dcr_pocket") == [event]


def test_the_moment_of_the_action_is_kept(user):
    from datetime import timedelta

    from django.utils import timezone

    then = timezone.now() - timedelta(minutes=3)
    event = audit_sensitive_action(
        principal=app_principal(user), event_type=EventType.CALL_PLACED, summary="placed a call", at=then
    )
    event.refresh_from_db()
    assert event.created == then
