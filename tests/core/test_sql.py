"""apps/core/sql.py: a compiled-once read gives what the ORM gives; an INSERT statement writes what save() writes."""

import hashlib
import threading
import uuid
from datetime import timedelta
from unittest import mock

import pytest
from django.db import connection, transaction
from django.db.models import F, signals
from django.db.models.sql.compiler import SQLCompiler
from django.db.transaction import TransactionManagementError
from django.utils import timezone
from oauth2_provider.models import set_token_value

from apps.audit.models import AuditEvent
from apps.core.sql import (
    CompiledQuery,
    NothingWritten,
    Statement,
    insert_statement,
    inserted,
    update_row_statement,
    write_together,
)
from apps.oauth.models import AccessToken, RefreshToken
from tests.support.factories import UserFactory
from tests.support.oauth import make_client

pytestmark = pytest.mark.django_db(transaction=False)


def _refresh_token(user, app, secret: str) -> RefreshToken:
    token = RefreshToken(
        user=user,
        application=app,
        token_family=uuid.uuid4(),
        resource=["https://api.example.com/v1"],
        scope="rates:read",
        expires=timezone.now() + timedelta(days=14),
    )
    set_token_value(token, secret)
    token.save()
    return token


def _by_checksum(checksum):
    return (
        RefreshToken.objects.select_related("user", "application")
        .only("id", "resource", "scope", "user__id", "user__is_active", "application__id", "application__client_id")
        .filter(token_checksum=checksum)
        .order_by("revoked")[:1]
    )


BY_CHECKSUM = CompiledQuery(_by_checksum)


def test_first_returns_what_the_orm_returns(user, django_assert_num_queries):
    app = make_client()
    stored = _refresh_token(user, app, "srt_compiled_1")
    expected = _by_checksum(stored.token_checksum).first()
    with django_assert_num_queries(1):
        found = BY_CHECKSUM.first(checksum=stored.token_checksum)
        # The joined rows come attached, as with select_related: no query of their own.
        assert found.user.pk == user.pk and found.user.is_active is True
        assert found.application.client_id == app.client_id
    assert found.pk == stored.pk
    assert found.resource == ["https://api.example.com/v1"]  # the JSON column converted, as the ORM does
    assert found.get_deferred_fields() == expected.get_deferred_fields()  # only() respected
    assert found.user.get_deferred_fields() == expected.user.get_deferred_fields()
    assert found._state.adding is False and found._state.db == "default"


def test_no_row_is_none(user):
    assert BY_CHECKSUM.first(checksum="0" * 64) is None


def test_each_call_uses_its_own_value(user):
    app = make_client()
    first, second = _refresh_token(user, app, "srt_compiled_a"), _refresh_token(user, app, "srt_compiled_b")
    assert BY_CHECKSUM.first(checksum=first.token_checksum).pk == first.pk
    assert BY_CHECKSUM.first(checksum=second.token_checksum).pk == second.pk


def test_django_compiles_the_query_once_per_thread():
    query = CompiledQuery(_by_checksum)
    with mock.patch.object(SQLCompiler, "as_sql", autospec=True, side_effect=SQLCompiler.as_sql) as as_sql:
        query.first(checksum="a" * 64)
        query.first(checksum="b" * 64)
        # Once for the values, once more to find where the value lands among the parameters.
        assert as_sql.call_count == 2
        # Another thread (its own connection) compiles its own.
        thread = threading.Thread(target=lambda: _in_thread(query))
        thread.start()
        thread.join()
        assert as_sql.call_count == 4


def _in_thread(query):
    from django.db import connections

    try:
        query.first(checksum="c" * 64)
    finally:
        connections.close_all()


@pytest.mark.skipif("not connection.features.has_select_for_update", reason="SQLite (the quick start) has no locks")
def test_a_locking_query_refuses_to_run_outside_a_transaction_every_time(user):
    locked = CompiledQuery(lambda value: RefreshToken.objects.select_for_update().filter(token_checksum=value)[:1])
    with transaction.atomic():
        assert locked.first(value="a" * 64) is None  # compiled inside a transaction
    with mock.patch.object(connection, "get_autocommit", return_value=True), pytest.raises(TransactionManagementError):
        locked.first(value="a" * 64)


def test_a_value_that_changes_the_sql_text_is_refused():
    # A slice bound is written into the SQL (LIMIT 2), not sent as a parameter: it belongs in the shape.
    query = CompiledQuery(lambda user_id, n: RefreshToken.objects.filter(user_id=user_id)[:n])
    with pytest.raises(ValueError, match="one of user_id, n changes the SQL"):
        query.rows(user_id="usr_1", n=2)


def test_a_value_the_database_prepares_runs_through_the_orm_every_time(user):
    # contains sends "%rates%", not the value: found the same rows, compiled never.
    app = make_client()
    stored = _refresh_token(user, app, "srt_compiled_contains")
    query = CompiledQuery(lambda value: RefreshToken.objects.filter(scope__contains=value)[:1])
    assert query.first(value="rates").pk == stored.pk
    assert query.first(value="numbers") is None


def test_a_value_without_a_second_of_its_type_is_refused():
    query = CompiledQuery(lambda value: RefreshToken.objects.filter(token_checksum=value)[:1])
    with pytest.raises(TypeError, match="part of the shape"):
        query.first(value=None)


def _of_user(newest_first, *, user_id, revoked_after):
    rows = RefreshToken.objects.filter(user_id=user_id, created__gt=revoked_after).annotate(
        client=F("application__name")
    )
    return rows.order_by("-created" if newest_first else "created")[:5]


OF_USER = CompiledQuery(_of_user)
EPOCH = timezone.now() - timedelta(days=365)


def test_rows_are_what_the_queryset_gives_for_each_shape_and_values(user):
    other_user = UserFactory()
    app = make_client()
    mine = [_refresh_token(user, app, f"srt_rows_{i}") for i in range(3)]
    _refresh_token(other_user, app, "srt_rows_other")
    since = timezone.now() - timedelta(hours=1)
    for newest_first in (True, False):
        for owner in (user, other_user):
            expected = list(_of_user(newest_first, user_id=owner.pk, revoked_after=since))
            found = OF_USER.rows(newest_first, user_id=owner.pk, revoked_after=since)
            assert [row.pk for row in found] == [row.pk for row in expected]
            assert [row.client for row in found] == [app.name] * len(expected)  # annotations set, as the ORM sets them
    assert {row.pk for row in OF_USER.rows(True, user_id=user.pk, revoked_after=since)} == {row.pk for row in mine}
    assert OF_USER.rows(True, user_id=user.pk, revoked_after=timezone.now() + timedelta(hours=1)) == []


def test_values_rows_are_dicts_as_values_gives_them(user):
    app = make_client()
    stored = _refresh_token(user, app, "srt_values")
    query = CompiledQuery(lambda pk: RefreshToken.objects.filter(pk=pk).values("id", "created", "resource")[:1])
    assert query.first(pk=stored.pk) == RefreshToken.objects.filter(pk=stored.pk).values("id", "created", "resource")[0]


def _calls_to_compile(query, calls) -> int:
    with mock.patch.object(SQLCompiler, "as_sql", autospec=True, side_effect=SQLCompiler.as_sql) as as_sql:
        for shape, values in calls:
            query.rows(*shape, **values)
        return as_sql.call_count


def test_a_shape_is_compiled_once_whatever_its_values(user):
    by_user = CompiledQuery(lambda newest_first, user_id: _of_user(newest_first, user_id=user_id, revoked_after=EPOCH))
    # Once with the values, once more with a stand-in for each.
    assert _calls_to_compile(by_user, [((True,), {"user_id": pk}) for pk in ("usr_1", "usr_2", user.pk)]) == 2
    assert _calls_to_compile(by_user, [((True,), {"user_id": "usr_4"})]) == 0
    assert _calls_to_compile(by_user, [((False,), {"user_id": "usr_4"})]) == 2  # another shape


@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="SQLite receives dates as strings Django prepares")
def test_dates_are_parameters_as_they_are_on_postgresql(user):
    since = timezone.now()
    calls = [((True,), {"user_id": user.pk, "revoked_after": since - timedelta(days=n)}) for n in range(3)]
    assert _calls_to_compile(CompiledQuery(_of_user), calls) == 2


def _comparable(obj) -> dict:
    row = type(obj).objects.filter(pk=obj.pk).values().get()  # every column, by attribute name
    row.pop("id")
    return row


def test_an_insert_statement_writes_what_save_writes(user):
    app = make_client()
    now = timezone.now()

    def access_token(secret):
        token = AccessToken(
            user=user, application=app, expires=now, scope="rates:read", resource=["r"], family=uuid.uuid4()
        )
        set_token_value(token, secret)
        return token

    saved = access_token("sat_saved")
    saved.save(force_insert=True)
    written = access_token("sat_written")
    statement = insert_statement(written, connection)
    with connection.cursor() as cursor:
        cursor.execute(statement.sql, statement.params)
    written.pk = AccessToken.objects.get(token_checksum=written.token_checksum).pk
    expected, actual = _comparable(saved), _comparable(written)
    # The same columns and values, apart from what each row is meant to differ in.
    for row in (expected, actual):
        row.pop("token_checksum"), row.pop("family"), row.pop("created"), row.pop("updated")
    assert actual == expected
    # auto_now_add stamped it, DOT's checksum field digested the secret, as save() does.
    stored = AccessToken.objects.get(pk=written.pk)
    assert stored.created is not None and stored.token == ""
    assert stored.token_checksum == hashlib.sha256(b"sat_written").hexdigest()


def test_an_insert_statement_keeps_an_explicit_primary_key_and_defaults(user):
    event = AuditEvent(event_type="oauth.token.refreshed", user_id=user.pk, actor_type="client")
    statement = insert_statement(event, connection)
    with connection.cursor() as cursor:
        cursor.execute(statement.sql, statement.params)
    stored = AuditEvent.objects.get(pk=event.pk)
    assert stored.pk.startswith("evt_") and stored.data == {} and stored.key_id == ""


def test_a_computed_column_must_exist():
    with pytest.raises(ValueError, match="no such column"):
        insert_statement(AuditEvent(), connection, computed={"nope": "1"})


def test_what_save_would_write_differently_is_refused(user):
    from django.db.models import Value

    event = AuditEvent(event_type="oauth.token.refreshed", user_id=user.pk, actor_type="client", actor_id=Value("x"))
    with pytest.raises(ValueError, match="expression"):
        insert_statement(event, connection)


def test_save_signals_are_sent_as_by_save(user):
    sent = []

    def record(sender, instance, **kwargs):
        sent.append((kwargs["signal"], kwargs.get("created")))

    signals.pre_save.connect(record, sender=AuditEvent)
    signals.post_save.connect(record, sender=AuditEvent)
    try:
        event = AuditEvent(event_type="oauth.token.refreshed", user_id=user.pk, actor_type="client")
        statement = insert_statement(event, connection)
        with connection.cursor() as cursor:
            cursor.execute(statement.sql, statement.params)
        inserted(event, connection)
    finally:
        signals.pre_save.disconnect(record, sender=AuditEvent)
        signals.post_save.disconnect(record, sender=AuditEvent)
    assert sent == [(signals.pre_save, None), (signals.post_save, True)]
    assert event._state.adding is False


def test_a_row_update_writes_what_the_querysets_update_writes(user):
    app = make_client()
    by_statement, by_update = _refresh_token(user, app, "srt_update_1"), _refresh_token(user, app, "srt_update_2")
    before = _comparable(by_statement)
    now = timezone.now()
    statement = update_row_statement(RefreshToken, by_statement.pk, connection, revoked=now, resource=["x"])
    with connection.cursor() as cursor:
        cursor.execute(statement.sql, statement.params)
        assert cursor.rowcount == 1
    RefreshToken.objects.filter(pk=by_update.pk).update(revoked=now, resource=["x"])
    written, updated = _comparable(by_statement), _comparable(by_update)
    assert (written["revoked"], written["resource"]) == (updated["revoked"], updated["resource"]) == (now, ["x"])
    assert written == before | {"revoked": now, "resource": ["x"]}  # nothing else changed


def test_a_row_update_unless_set_returns_the_row_only_while_that_field_is_null(user):
    app = make_client()
    token = _refresh_token(user, app, "srt_unless_set")
    now = timezone.now()
    statement = update_row_statement(RefreshToken, token.pk, connection, unless_set="revoked", revoked=now)
    with connection.cursor() as cursor:
        cursor.execute(statement.sql, statement.params)
        assert cursor.fetchall() == [(token.pk,)]
        cursor.execute(statement.sql, [now + timedelta(days=1), *statement.params[1:]])
        assert cursor.fetchall() == []  # already set: neither updated nor returned
    assert RefreshToken.objects.get(pk=token.pk).revoked == now


@pytest.mark.parametrize("gate_open", [True, False])
def test_an_insert_for_each_row_of_a_part_writes_only_when_that_part_returned_a_row(user, gate_open):
    event = AuditEvent(event_type="oauth.token.refreshed", user_id=user.pk, actor_type="client")
    statement = insert_statement(event, connection, for_each_row_of="gate")
    gate = "SELECT 1 AS one" + ("" if gate_open else " WHERE 1 = 0")
    with connection.cursor() as cursor:
        cursor.execute(f"WITH gate AS ({gate}) {statement.sql}", statement.params)
    assert AuditEvent.objects.filter(pk=event.pk).exists() is gate_open
    if gate_open:  # the values typed by their columns, as VALUES would have them
        stored = AuditEvent.objects.get(pk=event.pk)
        assert (stored.data, stored.user_id, stored.actor_type) == ({}, user.pk, "client")


def test_a_row_update_takes_plain_values_of_columns_only():
    from django.db.models import F

    with pytest.raises(ValueError, match="plain values"):
        update_row_statement(RefreshToken, 1, connection, revoked=F("created"))


def test_the_shapes_kept_are_bounded(user):
    # A shape may follow from a request (a page size): a caller cycling through them must not grow
    # the process without bound. The least recently used shape is dropped and compiled again if asked.
    by_size = CompiledQuery(lambda size, user_id: RefreshToken.objects.filter(user_id=user_id)[:size], max_shapes=4)
    for size in range(1, 10):
        assert by_size.rows(size, user_id=user.pk) == []
    assert len(by_size._local.compiled) == 4
    assert _calls_to_compile(by_size, [((9,), {"user_id": user.pk})]) == 0  # kept
    assert _calls_to_compile(by_size, [((1,), {"user_id": user.pk})]) == 2  # dropped, compiled again


def test_a_shape_costs_two_compilations_however_many_values():
    many = CompiledQuery(lambda count, **ids: RefreshToken.objects.filter(token_checksum__in=list(ids.values()))[:1])
    ids = {f"id_{n}": f"{n:064d}" for n in range(40)}
    assert _calls_to_compile(many, [((40,), ids)]) == 2


def test_equal_values_keep_their_own_places(user):
    # Two values that happen to be equal are still substituted each in its own place.
    both = CompiledQuery(
        lambda *, owner, checksum: RefreshToken.objects.filter(user_id=owner, token_checksum=checksum)[:1]
    )
    app = make_client()
    stored = _refresh_token(user, app, "srt_equal_values")
    assert both.first(owner=user.pk, checksum=stored.token_checksum).pk == stored.pk
    assert both.first(owner=stored.token_checksum, checksum=user.pk) is None


def test_a_flag_belongs_in_the_shape():
    flagged = CompiledQuery(lambda revoked: RefreshToken.objects.filter(revoked__isnull=revoked)[:1])
    with pytest.raises(TypeError, match="shape"):
        flagged.first(revoked=True)


def test_a_required_write_that_changes_no_row_raises_and_the_others_roll_back(user):
    # A condition the write carried no longer held (an Idempotency-Key's claim taken over): nothing of
    # the writes sent with it is kept, alone or together with others.
    event = AuditEvent(event_type="oauth.token.refreshed", user_id=user.pk, actor_type="client")
    missing = update_row_statement(AuditEvent, "evt_none", connection, event_type="x")
    required = Statement(f"{missing.sql} RETURNING id", missing.params, required=True)
    with pytest.raises(NothingWritten), transaction.atomic():
        write_together([insert_statement(event, connection), required])
    assert not AuditEvent.objects.filter(pk=event.pk).exists()
    with pytest.raises(NothingWritten), transaction.atomic():
        write_together([required])


def test_a_required_write_that_changes_its_row_passes(user):
    event = AuditEvent(event_type="oauth.token.refreshed", user_id=user.pk, actor_type="client")
    write_together([insert_statement(event, connection)])
    found = update_row_statement(AuditEvent, event.pk, connection, event_type="oauth.token.revoked")
    other = AuditEvent(event_type="oauth.token.refreshed", user_id=user.pk, actor_type="client")
    write_together(
        [Statement(f"{found.sql} RETURNING id", found.params, required=True), insert_statement(other, connection)]
    )
    assert (
        AuditEvent.objects.get(pk=event.pk).event_type == "oauth.token.revoked"
        and AuditEvent.objects.filter(pk=other.pk).exists()
    )
