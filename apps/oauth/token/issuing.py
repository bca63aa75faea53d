"""The writes of a successful token exchange: the new tokens, and the code or token it consumes.

A refresh retires the presented token, inserts an access and a refresh token
and writes its audit row (docs/spec.md 3.3, 5.11); a code exchange marks the code
used and inserts the two tokens. On PostgreSQL these writes are one statement (a
data-modifying ``WITH``): one round trip and one statement for the database to
parse and plan, where there were three or four, on the endpoint whose throughput
is measured against stock django-oauth-toolkit's. Elsewhere (SQLite, the quick
start) they are the ORM's statements. Either way they commit together or not at
all, and write the same rows (tests/oauth/test_issuing.py compares them).

A code is redeemed by the write that issues its tokens, and only if it is still
unused (``UPDATE ... WHERE used_at IS NULL``; the inserts happen only if that
UPDATE returned the row). Of two exchanges of one code that both passed their
checks, the second's UPDATE waits for the first's to commit, finds the code used
and writes nothing: ``CodeAlreadyRedeemed``. So a code exchange on PostgreSQL
needs no transaction and no row lock of its own (``exchange_transaction``).
"""

from contextlib import nullcontext

from django.db import connections, router, transaction
from oauth2_provider.models import set_token_value

from apps.audit.models import EventType
from apps.audit.services import actor_client, audit_event
from apps.core.sql import Statement, insert_statement, inserted, update_row_statement

from ..models import AccessToken, Application, Grant, RefreshToken
from .lifetimes import ACCESS_TOKEN_LIFETIME, REFRESH_IDLE_LIFETIME


class CodeAlreadyRedeemed(Exception):
    """The code was used after the exchange read it (by a concurrent exchange, or voided by a
    disconnect): nothing was written."""


def exchange_transaction(grant_type: str):
    """The transaction a token exchange runs in.

    A refresh holds its token's row lock from the read to the writes (its family budget
    is applied in between, and a refusal rolls back). A code exchange on PostgreSQL needs
    none: its one statement redeems the code only if it is still unused and writes the
    tokens only then, atomically. Elsewhere the ORM's several writes share one.
    """
    if grant_type == "authorization_code" and writes_in_one_statement(connections[router.db_for_write(Grant)]):
        return nullcontext()
    return transaction.atomic()


def tokens_issue(
    *,
    token: dict,
    user,
    application: Application,
    family,
    resource: list,
    granted_scope: str,
    now,
    family_expires,
    previous: RefreshToken | None,
    redeemed: Grant | None = None,
) -> tuple[AccessToken, RefreshToken]:
    """Persist the access and refresh token oauthlib generated (digests only).

    ``previous`` is the refresh token being exchanged, if any: it is marked revoked
    (rotation) and the refresh is written to the audit log by the client that made it.
    ``redeemed`` is the authorization code being exchanged, if any: it is marked used, and
    if it already was, nothing is written and CodeAlreadyRedeemed is raised.
    """
    access = AccessToken(
        user=user,
        application=application,
        expires=now + ACCESS_TOKEN_LIFETIME,
        scope=token["scope"],
        resource=resource,
        family=family,
        source_refresh_token=previous,
    )
    set_token_value(access, token["access_token"])
    refresh = RefreshToken(
        user=user,
        application=application,
        access_token=access,
        token_family=family,
        resource=resource,
        scope=granted_scope,
        expires=min(now + REFRESH_IDLE_LIFETIME, family_expires),
        family_expires=family_expires,
    )
    set_token_value(refresh, token["refresh_token"])
    event = None
    if previous is not None:
        event = audit_event(
            event_type=EventType.OAUTH_TOKEN_REFRESHED,
            user=user,
            actor=actor_client(application.client_id),
            client_id=application.client_id,
            at=now,
        )
    connection = connections[router.db_for_write(RefreshToken)]
    if writes_in_one_statement(connection):
        _write_in_one_statement(
            connection, previous=previous, redeemed=redeemed, access=access, refresh=refresh, event=event, now=now
        )
    else:
        if previous is not None:
            RefreshToken.objects.filter(pk=previous.pk).update(revoked=now, updated=now)
        if redeemed is not None and not Grant.objects.filter(pk=redeemed.pk, used_at=None).update(used_at=now):
            raise CodeAlreadyRedeemed
        access.save(force_insert=True)
        refresh.save(force_insert=True)
        if event is not None:
            event.save(force_insert=True)
    return access, refresh


def writes_in_one_statement(connection) -> bool:
    # A data-modifying WITH is PostgreSQL's; SQLite has none.
    return connection.vendor == "postgresql"


def _write_in_one_statement(connection, *, previous, redeemed, access, refresh, event, now) -> None:
    # Built from Django's compiled statements and quoted identifiers; every value is a parameter.
    quote = connection.ops.quote_name
    access_pk, refresh_pk = quote(AccessToken._meta.pk.column), quote(RefreshToken._meta.pk.column)
    parts: list[tuple[str, Statement]] = []
    if previous is not None:
        parts.append(("retired", update_row_statement(RefreshToken, previous.pk, connection, revoked=now, updated=now)))
    # The tokens of a code exchange are written only if the code was still unused.
    only_if = None
    if redeemed is not None:
        only_if = "redeemed"
        parts.append(
            ("redeemed", update_row_statement(Grant, redeemed.pk, connection, unless_set="used_at", used_at=now))
        )
    access_insert = insert_statement(access, connection, for_each_row_of=only_if)
    parts.append(("access", Statement(f"{access_insert.sql} RETURNING {access_pk}", access_insert.params)))
    # The refresh token points at the access token inserted beside it.
    access_token_id = RefreshToken._meta.get_field("access_token").column
    refresh_insert = insert_statement(
        refresh,
        connection,
        computed={access_token_id: f"(SELECT {access_pk} FROM access)"},  # noqa: S608
        for_each_row_of=only_if,
    )
    parts.append(("refresh", Statement(f"{refresh_insert.sql} RETURNING {refresh_pk}", refresh_insert.params)))
    if event is not None:
        parts.append(("event", insert_statement(event, connection)))
    ctes = ", ".join(f"{name} AS ({statement.sql})" for name, statement in parts)
    returned = f"(SELECT {access_pk} FROM access), (SELECT {refresh_pk} FROM refresh)"  # noqa: S608
    sql = f"WITH {ctes} SELECT {returned}"
    with connection.cursor() as cursor:
        cursor.execute(sql, [param for _, statement in parts for param in statement.params])
        access_id, refresh_id = cursor.fetchone()
    if access_id is None:
        raise CodeAlreadyRedeemed
    inserted(access, connection, pk=access_id)
    inserted(refresh, connection, pk=refresh_id, access_token_id=access_id)
    if event is not None:
        inserted(event, connection)
