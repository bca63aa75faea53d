"""SQL statements per token request (DOT stock: 13 for a code exchange, 18 for a refresh)."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.oauth.helpers import exchange, get_code, make_client, pkce, refresh, signed_in, tokens_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def app():
    return make_client()


def _show(ctx):
    return "\n".join(q["sql"][:160] for q in ctx.captured_queries)


def test_code_exchange_in_at_most_8_statements(user, app):
    verifier, challenge = pkce()
    code = get_code(signed_in(user), app, challenge)
    client = Client()
    with CaptureQueriesContext(connection) as ctx:
        response = exchange(client, app, code, verifier)
    assert response.status_code == 200
    assert len(ctx.captured_queries) <= 8, _show(ctx)


def test_refresh_in_at_most_10_statements(user, app):
    tokens = tokens_for(user, app)
    client = Client()
    with CaptureQueriesContext(connection) as ctx:
        response = refresh(client, app, tokens["refresh_token"])
    assert response.status_code == 200
    assert len(ctx.captured_queries) <= 10, _show(ctx)


def test_failed_exchange_stays_cheap(user, app, django_assert_max_num_queries):
    _verifier, challenge = pkce()
    code = get_code(signed_in(user), app, challenge)
    wrong, _ = pkce()
    with django_assert_max_num_queries(6):
        exchange(Client(), app, code, wrong)
