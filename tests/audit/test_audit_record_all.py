"""audit_record_all: several rows in one statement, all of them or none."""

import pytest
from django.db import IntegrityError, connection
from django.test.utils import CaptureQueriesContext

from apps.audit.models import AuditEvent, EventType
from apps.audit.services import SYSTEM, audit_event, audit_record_all
from tests.support.factories import UserFactory


def events(user, count=2):
    return [
        audit_event(event_type=EventType.MESSAGES_READ, user=user, actor=SYSTEM, data={"n": n}) for n in range(count)
    ]


@pytest.mark.django_db
def test_every_row_is_written_with_what_it_was_given():
    user = UserFactory()
    written = events(user, 3)
    audit_record_all(written)
    stored = {row.pk: row for row in AuditEvent.objects.filter(user=user)}
    assert set(stored) == {event.pk for event in written}
    for event in written:
        row = stored[event.pk]
        assert (row.event_type, row.actor_type, row.data, row.created) == (
            "messages.read",
            "system",
            event.data,
            event.created,
        )
    assert all(not event._state.adding for event in written)


@pytest.mark.django_db
def test_nothing_is_sent_for_no_rows():
    with CaptureQueriesContext(connection) as sent:
        audit_record_all([])
    assert not sent.captured_queries


@pytest.mark.skipif(connection.vendor != "postgresql", reason="one statement on PostgreSQL (a data-modifying WITH)")
@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_the_rows_are_one_statement_and_all_or_none():
    user = UserFactory()
    with CaptureQueriesContext(connection) as sent:
        audit_record_all(events(user))
    assert [query["sql"].split()[0] for query in sent.captured_queries] == ["WITH"]
    assert AuditEvent.objects.filter(user=user).count() == 2
    # The second row's id is taken: the statement fails whole, and the first row is not left behind.
    first, second = events(user)
    second.id = AuditEvent.objects.filter(user=user).first().pk
    with pytest.raises(IntegrityError):
        audit_record_all([first, second])
    assert not AuditEvent.objects.filter(pk=first.pk).exists()
