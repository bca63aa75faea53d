"""SQL statements per token request (DOT stock: 13 for a code exchange, 18 for a refresh).

Counts include BEGIN and COMMIT. A refresh: the token row locked with its user
and client joined, then its writes: the old token revoked, the access and refresh
rows inserted, the audit row, which on PostgreSQL are one statement
(apps/oauth/token/issuing.py); nothing else (the grant-family budget needs no lookup of
its own).
"""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.support.oauth import exchange, get_code, pkce, post_form, refresh, signed_in, tokens_for

pytestmark = pytest.mark.django_db


def _show(ctx):
    return "\n".join(q["sql"][:160] for q in ctx.captured_queries)


def test_code_exchange_in_2_statements_on_postgresql_7_elsewhere(user, app):
    """On PostgreSQL: the code read (client and user joined), then the one statement that redeems
    it and writes the tokens; no transaction of its own, so no BEGIN or COMMIT either."""
    verifier, challenge = pkce()
    code = get_code(signed_in(user), app, challenge)
    client = Client()
    with CaptureQueriesContext(connection) as ctx:
        response = exchange(client, app, code, verifier)
    assert response.status_code == 200
    # The client's once-a-minute last-use stamp falls due on its first exchange.
    sent = [q["sql"] for q in ctx.captured_queries if not q["sql"].startswith('UPDATE "oauth_application"')]
    if connection.vendor == "postgresql":
        assert [sql.split(" ", 2)[:2] for sql in sent] == [["SELECT", '"oauth_grant"."id",'], ["WITH", "redeemed"]]
    else:
        assert len(ctx.captured_queries) <= 7, _show(ctx)


def test_refresh_in_at_most_4_statements_on_postgresql_7_elsewhere(user, app):
    tokens = tokens_for(user, app)
    client = Client()
    with CaptureQueriesContext(connection) as ctx:
        response = refresh(client, app, tokens["refresh_token"])
    assert response.status_code == 200
    assert len(ctx.captured_queries) <= (4 if connection.vendor == "postgresql" else 7), _show(ctx)


def _reads(ctx):
    return [q["sql"] for q in ctx.captured_queries if q["sql"].startswith("SELECT")]


def test_a_token_request_reads_its_credential_once_with_the_client_joined(user, app):
    tokens = tokens_for(user, app)
    with CaptureQueriesContext(connection) as ctx:
        assert refresh(Client(), app, tokens["refresh_token"]).status_code == 200
    [read] = _reads(ctx)
    assert read.startswith('SELECT "oauth_refreshtoken"') and '"oauth_application"' in read
    if connection.features.has_select_for_update:  # SQLite (the quick start) has no row locks
        assert "FOR UPDATE" in read

    verifier, challenge = pkce()
    code = get_code(signed_in(user), app, challenge)
    with CaptureQueriesContext(connection) as ctx:
        assert exchange(Client(), app, code, verifier).status_code == 200
    [read] = _reads(ctx)
    assert read.startswith('SELECT "oauth_grant"') and '"oauth_application"' in read


def test_failed_exchange_stays_cheap(user, app, django_assert_max_num_queries):
    _verifier, challenge = pkce()
    code = get_code(signed_in(user), app, challenge)
    wrong, _ = pkce()
    with django_assert_max_num_queries(6):
        exchange(Client(), app, code, wrong)


def test_a_browser_refresh_with_an_origin_costs_no_extra_statement(user, app):
    # oauthlib asks the client whether the origin is allowed: that reads the joined client, not the table.
    app.allowed_origins = "https://client.example.com"
    app.save()
    tokens = tokens_for(user, app)
    with CaptureQueriesContext(connection) as ctx:
        response = post_form(
            Client(),
            "/oauth/token",
            {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": app.client_id},
            HTTP_ORIGIN="https://client.example.com",
        )
    assert response.status_code == 200
    assert len(ctx.captured_queries) <= 7, _show(ctx)


def test_a_rotated_token_presented_again_reads_its_row_and_verdict_once(user, app):
    """Reuse: the row (locked, client joined) and the "revoked by the user?" audit verdict are
    read once each, then the family is revoked; the view reads neither again."""
    tokens = tokens_for(user, app)
    assert refresh(Client(), app, tokens["refresh_token"]).status_code == 200
    with CaptureQueriesContext(connection) as ctx:
        response = refresh(Client(), app, tokens["refresh_token"])
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"
    selects = [q["sql"] for q in ctx.captured_queries if q["sql"].lstrip().upper().startswith("SELECT")]
    token_reads = [sql for sql in selects if "oauth_refreshtoken" in sql and "token_checksum" in sql]
    verdict_reads = [sql for sql in selects if "audit_auditevent" in sql]
    assert len(token_reads) == 1, _show(ctx)
    assert len(verdict_reads) == 1, _show(ctx)
    assert len(ctx.captured_queries) <= 11, _show(ctx)  # was 13: the row and the verdict were read twice
