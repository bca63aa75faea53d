"""The writes of a refresh (docs/spec.md 3.3, 5.11): the same rows whether written as one statement or four.

On PostgreSQL a refresh's writes are one data-modifying WITH statement
(apps/oauth/token/issuing.py); on SQLite, the ORM's statements. CI runs PostgreSQL, so
the comparison below runs there.
"""

import uuid
from datetime import timedelta
from unittest import mock

import pytest
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.audit.models import AuditEvent, EventType
from apps.oauth.models import AccessToken, Grant, RefreshToken
from apps.oauth.token import issuing
from apps.oauth.tokens import new_access_token, new_refresh_token
from tests.support.oauth import V1, exchange, get_code, make_client, pkce, refresh, signed_in, tokens_for

pytestmark = pytest.mark.django_db

on_postgresql = pytest.mark.skipif(
    "connection.vendor != 'postgresql'", reason="the one-statement path is PostgreSQL's (CI runs it)"
)


def _previous(user, app) -> RefreshToken:
    now = timezone.now()
    token = RefreshToken(
        user=user,
        application=app,
        token_family=uuid.uuid4(),
        resource=[V1],
        scope="rates:read calls:read",
        expires=now + timedelta(days=14),
        family_expires=now + timedelta(days=30),
    )
    token.token_checksum = uuid.uuid4().hex
    token.save()
    return token


def _rotate(user, app, previous, *, one_statement: bool):
    now = timezone.now()
    with (
        mock.patch("apps.oauth.token.issuing.writes_in_one_statement", return_value=one_statement),
        transaction.atomic(),
    ):
        access, new = _issue(user, app, previous, now)
    return now, access, new


def _issue(user, app, previous, now):
    token = {"access_token": new_access_token(), "refresh_token": new_refresh_token(), "scope": "rates:read"}
    return issuing.tokens_issue(
        token=token,
        user=user,
        application=app,
        family=previous.token_family,
        resource=previous.resource,
        granted_scope=previous.scope,
        now=now,
        family_expires=previous.family_expires,
        previous=previous,
    )


def _rows(previous, access, new) -> dict:
    def row(model, pk, *drop):
        values = model.objects.filter(pk=pk).values().get()  # every column, by attribute name
        # What differs between any two rotations: ids, digests, moments.
        for name in ("id", "token_checksum", "created", "updated", "expires", "family_expires", *drop):
            values.pop(name, None)
        return values

    event = AuditEvent.objects.get(event_type=EventType.OAUTH_TOKEN_REFRESHED, user_id=previous.user_id)
    event_row = AuditEvent.objects.filter(pk=event.pk).values().get()
    event_row.pop("id"), event_row.pop("created")
    event.delete()  # the next rotation's event is then the only one
    return {
        "retired": row(RefreshToken, previous.pk, "token_family", "access_token_id"),
        "access": row(AccessToken, access.pk, "source_refresh_token_id", "family"),
        "refresh": row(RefreshToken, new.pk, "access_token_id", "token_family"),
        "event": event_row,
    }


def test_a_rotation_writes_the_spec_rows(user):
    app = make_client()
    previous = _previous(user, app)
    now, access, new = _rotate(user, app, previous, one_statement=connection.vendor == "postgresql")
    retired = RefreshToken.objects.get(pk=previous.pk)
    assert retired.revoked == now and retired.updated == now  # the old token stops working (docs/spec.md 3.3)
    stored_access = AccessToken.objects.get(pk=access.pk)
    assert stored_access.source_refresh_token_id == previous.pk and stored_access.family == previous.token_family
    assert stored_access.expires == now + timedelta(hours=1) and stored_access.token == ""  # digest only
    stored_refresh = RefreshToken.objects.get(pk=new.pk)
    assert stored_refresh.access_token_id == access.pk and new.access_token_id == access.pk
    assert stored_refresh.revoked is None and stored_refresh.token == ""
    assert stored_refresh.family_expires == previous.family_expires  # the 30-day cap carries forward
    assert stored_refresh.expires == min(now + timedelta(days=14), previous.family_expires)
    (event,) = AuditEvent.objects.filter(event_type=EventType.OAUTH_TOKEN_REFRESHED)
    assert (event.actor_type, event.actor_id, event.client_id, event.user_id) == (
        "client",
        app.client_id,
        app.client_id,
        user.pk,
    )
    assert event.created == now


@on_postgresql
def test_one_statement_writes_what_the_orm_writes(user):
    app = make_client()
    by_statement = _rows(*_rotation(user, app, one_statement=True))
    by_orm = _rows(*_rotation(user, app, one_statement=False))
    assert by_statement["retired"].pop("revoked") is not None and by_orm["retired"].pop("revoked") is not None
    assert by_statement == by_orm


def _rotation(user, app, *, one_statement):
    previous = _previous(user, app)
    _, access, new = _rotate(user, app, previous, one_statement=one_statement)
    return previous, access, new


@on_postgresql
def test_a_refresh_writes_in_one_statement(user):
    app = make_client()
    tokens = tokens_for(user, app)
    with CaptureQueriesContext(connection) as ctx:
        assert refresh(Client(), app, tokens["refresh_token"]).status_code == 200
    writes = [q["sql"] for q in ctx.captured_queries if not q["sql"].startswith(("SELECT", "SAVEPOINT", "RELEASE"))]
    assert len(writes) == 1, writes
    assert writes[0].startswith('WITH retired AS (UPDATE "oauth_refreshtoken"')
    for table in ("oauth_accesstoken", "oauth_refreshtoken", "audit_auditevent"):
        assert f'INSERT INTO "{table}"' in writes[0]


@on_postgresql
def test_a_code_exchange_writes_in_one_statement(user):
    app = make_client()
    verifier, challenge = pkce()
    code = get_code(signed_in(user), app, challenge)
    with CaptureQueriesContext(connection) as ctx:
        assert exchange(Client(), app, code, verifier).status_code == 200
    writes = [q["sql"] for q in ctx.captured_queries if q["sql"].startswith(("UPDATE", "INSERT", "WITH"))]
    writes = [sql for sql in writes if '"oauth_application"' not in sql.split(" SET ")[0]]  # once-a-minute stamp
    assert len(writes) == 1, writes
    assert writes[0].startswith('WITH redeemed AS (UPDATE "oauth_grant"')
    for table in ("oauth_accesstoken", "oauth_refreshtoken"):
        assert f'INSERT INTO "{table}"' in writes[0]


def test_an_exchanged_code_is_used_and_cannot_be_exchanged_again(user):
    app = make_client()
    verifier, challenge = pkce()
    code = get_code(signed_in(user), app, challenge)
    assert exchange(Client(), app, code, verifier).status_code == 200
    (grant,) = Grant.objects.filter(application=app)
    assert grant.used_at is not None
    again = exchange(Client(), app, code, verifier)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"


@pytest.mark.parametrize("one_statement", [True, False])
def test_a_code_already_used_issues_nothing(user, one_statement):
    if one_statement and connection.vendor != "postgresql":
        pytest.skip("the one-statement path is PostgreSQL's (CI runs it)")
    app = make_client()
    _verifier, challenge = pkce()
    get_code(signed_in(user), app, challenge)
    (grant,) = Grant.objects.filter(application=app)
    used_at = timezone.now() - timedelta(seconds=5)
    Grant.objects.filter(pk=grant.pk).update(used_at=used_at)  # since the exchange read it
    token = {"access_token": new_access_token(), "refresh_token": new_refresh_token(), "scope": grant.scope}
    with (
        mock.patch("apps.oauth.token.issuing.writes_in_one_statement", return_value=one_statement),
        pytest.raises(issuing.CodeAlreadyRedeemed),
        transaction.atomic(),
    ):
        issuing.tokens_issue(
            token=token,
            user=user,
            application=app,
            family=grant.family,
            resource=grant.resource,
            granted_scope=grant.scope,
            now=timezone.now(),
            family_expires=timezone.now() + timedelta(days=30),
            previous=None,
            redeemed=grant,
        )
    assert not AccessToken.objects.exists() and not RefreshToken.objects.exists()
    assert Grant.objects.get(pk=grant.pk).used_at == used_at  # the first redemption stands


@on_postgresql
def test_a_failed_statement_writes_nothing(user):
    app = make_client()
    previous = _previous(user, app)
    taken = AccessToken.objects.create(user=user, application=app, expires=timezone.now(), token_checksum="f" * 64)
    counts = (AccessToken.objects.count(), RefreshToken.objects.count(), AuditEvent.objects.count())
    # An access token whose digest collides with a stored one fails the statement after its UPDATE ran.
    colliding = mock.patch("apps.oauth.token.issuing.set_token_value", side_effect=_colliding(taken))
    with colliding, pytest.raises(IntegrityError), transaction.atomic():
        _issue(user, app, previous, timezone.now())
    assert (AccessToken.objects.count(), RefreshToken.objects.count(), AuditEvent.objects.count()) == counts
    assert RefreshToken.objects.get(pk=previous.pk).revoked is None


def _colliding(taken):
    from oauth2_provider.models import set_token_value

    def assign(instance, raw):
        set_token_value(instance, raw)
        if isinstance(instance, AccessToken):
            instance._raw_token = None
            instance.token = ""
            instance.token_checksum = taken.token_checksum

    return assign
