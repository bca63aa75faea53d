"""Concurrent redemption of one code and concurrent refresh of one token (PostgreSQL).

A code is redeemed by the statement that writes its tokens, only if still unused;
a refresh token's row is locked with SELECT ... FOR UPDATE for the whole exchange.
Either way exactly one request mints tokens; the others see the credential used
and answer invalid_grant.
"""

import pytest
from django.test import Client

from apps.core.ids import digest
from apps.oauth.models import AccessToken, RefreshToken
from tests.support.oauth import exchange, get_code, make_client, pkce, refresh, signed_in, tokens_for
from tests.support.races import postgresql_only, together

THREADS = 8

pytestmark = [pytest.mark.django_db(transaction=True), postgresql_only]


def _race(request_fn):
    """``request_fn(client)`` from THREADS fresh clients at once."""
    return together(lambda _i: request_fn(Client()), THREADS)


def test_many_threads_redeeming_one_code(user):
    app = make_client()
    verifier, challenge = pkce()
    code = get_code(signed_in(user), app, challenge)

    results = _race(lambda client: exchange(client, app, code, verifier))

    winners = [r for r in results if r.status_code == 200]
    losers = [r for r in results if r.status_code != 200]
    assert len(winners) == 1
    assert all(r.status_code == 400 and r.json()["error"] == "invalid_grant" for r in losers)
    won = winners[0].json()
    # No token row other than the winner's exists. (Each loser is a failed
    # exchange with that code; the third revokes the family, the winner's too.)
    assert set(AccessToken.objects.values_list("token_checksum", flat=True)) <= {digest(won["access_token"])}
    assert set(RefreshToken.objects.values_list("token_checksum", flat=True)) == {digest(won["refresh_token"])}


def test_many_threads_refreshing_one_token(user):
    app = make_client()
    tokens = tokens_for(user, app)
    before_access = set(AccessToken.objects.values_list("token_checksum", flat=True))

    results = _race(lambda client: refresh(client, app, tokens["refresh_token"]))

    winners = [r for r in results if r.status_code == 200]
    losers = [r for r in results if r.status_code != 200]
    assert len(winners) == 1
    assert all(r.status_code == 400 and r.json()["error"] == "invalid_grant" for r in losers)
    won = winners[0].json()
    refresh_rows = set(RefreshToken.objects.values_list("token_checksum", flat=True))
    assert refresh_rows == {digest(tokens["refresh_token"]), digest(won["refresh_token"])}
    new_access = set(AccessToken.objects.values_list("token_checksum", flat=True)) - before_access
    assert new_access <= {digest(won["access_token"])}
    # The losers presented a rotated token: reuse, so the family is revoked (docs/spec.md 3.3).
    assert not RefreshToken.objects.filter(revoked__isnull=True).exists()


def test_many_concurrent_decisions_issue_one_code(user):
    from apps.oauth.models import ConsentTransaction, Grant
    from tests.support.oauth import decide, start

    app = make_client()
    browser = signed_in(user)
    txn_id = start(browser, app, pkce()[1])
    cookies = browser.cookies

    def allow(client):
        client.cookies = cookies
        return decide(client, txn_id, "allow")

    results = _race(allow)

    assert sorted(r.status_code for r in results) == [200] + [409] * (THREADS - 1)
    assert all(r.json()["error"]["code"] == "transaction_decided" for r in results if r.status_code == 409)
    assert Grant.objects.count() == 1
    assert ConsentTransaction.objects.get(pk=txn_id).decision == "allow"
