"""A code used between an exchange's read and its write (docs/spec.md 3.3, 7.3, 8.3).

An exchange reads the code, checks it, then writes the tokens; the write redeems the
code only if it is still unused (apps/oauth/token/issuing.py). Two exchanges of one
code, or an exchange and a disconnect, can interleave there: these tests put the other
one in that gap, on whichever database the suite runs (tests/oauth/test_races.py races
real threads on PostgreSQL).
"""

from datetime import timedelta
from unittest import mock

import pytest
from django.db import OperationalError
from django.test import Client
from django.utils import timezone

from apps.oauth.connections.revocation import RECONNECT_DESCRIPTION
from apps.oauth.connections.services import connection_revoke
from apps.oauth.models import AccessToken, Application, Grant, RefreshToken
from apps.oauth.token import lockouts
from apps.oauth.token.validator import Validator
from tests.support.oauth import exchange, get_code, make_client, pkce, signed_in, tokens_for

pytestmark = pytest.mark.django_db


def _between_read_and_write(action):
    checked = Validator.validate_code

    def validate_code(self, client_id, code, client, request, *args, **kwargs):
        valid = checked(self, client_id, code, client, request, *args, **kwargs)
        if valid:
            action(request.grant)
        return valid

    return mock.patch.object(Validator, "validate_code", validate_code)


def _exchange_with(user, action, app=None):
    app = app or make_client()
    verifier, challenge = pkce()
    code = get_code(signed_in(user), app, challenge)
    with (
        _between_read_and_write(lambda grant: action(app, grant)),
        mock.patch.object(lockouts, "exchange_failed") as failed,
    ):
        response = exchange(Client(), app, code, verifier)
    return response, failed


def _redeemed_elsewhere(app, grant):
    Grant.objects.filter(pk=grant.pk).update(used_at=timezone.now())


def test_a_code_redeemed_after_it_was_read_issues_nothing(user):
    response, failed = _exchange_with(user, _redeemed_elsewhere)
    assert response.status_code == 400
    body = response.json()
    assert (body["error"], body["error_description"]) == ("invalid_grant", "The authorization code was already used.")
    assert response["Cache-Control"] == "no-store"
    assert not AccessToken.objects.exists() and not RefreshToken.objects.exists()
    failed.assert_called_once()  # a second redemption counts against the code, as a replay does


def test_a_code_voided_by_a_disconnect_after_it_was_read_asks_to_reconnect(user):
    response, failed = _exchange_with(user, lambda app, grant: connection_revoke(user=user, client_id=app.client_id))
    assert response.status_code == 400
    body = response.json()
    assert (body["error"], body["error_description"]) == ("invalid_grant", RECONNECT_DESCRIPTION)
    assert not AccessToken.objects.exists() and not RefreshToken.objects.exists()
    failed.assert_not_called()  # the user revoked it: not a failed guess (docs/spec.md 8.3)


def test_the_code_once_redeemed_cannot_be_redeemed_again(user):
    app = make_client()
    verifier, challenge = pkce()
    code = get_code(signed_in(user), app, challenge)
    assert exchange(Client(), app, code, verifier).status_code == 200
    again = exchange(Client(), app, code, verifier)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    assert AccessToken.objects.count() == 1 and RefreshToken.objects.count() == 1


def test_a_code_deleted_after_it_was_read_answers_as_an_unknown_code(user):
    # Its client purged, or its user deleted, while the exchange was checking it.
    response, _failed = _exchange_with(user, lambda app, grant: Grant.objects.filter(pk=grant.pk).delete())
    app = make_client()
    unknown = exchange(Client(), app, "not-a-code-" + "x" * 32, pkce()[0])
    assert response.status_code == unknown.status_code == 400
    assert response.json() == unknown.json()
    assert response.json()["error"] == "invalid_grant"
    assert not AccessToken.objects.exists() and not RefreshToken.objects.exists()


def test_a_code_that_expired_while_it_was_checked_is_voided_by_a_disconnect(user):
    # The exchange passed its expiry check an instant before the code expired; a disconnect then
    # ran before the exchange wrote. The disconnect voids that code too, so nothing survives it.
    app = make_client()
    tokens_for(user, app)  # something live for the disconnect to revoke

    def expire_then_disconnect(app, grant):
        Grant.objects.filter(pk=grant.pk).update(expires=timezone.now() - timedelta(seconds=1))
        connection_revoke(user=user, client_id=app.client_id)

    response, failed = _exchange_with(user, expire_then_disconnect, app=app)
    assert response.status_code == 400
    assert (response.json()["error"], response.json()["error_description"]) == ("invalid_grant", RECONNECT_DESCRIPTION)
    failed.assert_not_called()
    assert not RefreshToken.objects.filter(revoked__isnull=True).exists()
    assert not AccessToken.objects.filter(expires__gt=timezone.now()).exists()


def test_the_clients_last_use_stamp_is_written_before_the_tokens(user):
    # A code exchange on PostgreSQL has no transaction: a stamp that failed after the tokens were
    # written would answer 503 for a code already spent. Failing first, it leaves the code usable.
    app = make_client()
    verifier, challenge = pkce()
    code = get_code(signed_in(user), app, challenge)
    Application.objects.filter(pk=app.pk).update(last_used_at=None)
    with mock.patch("apps.oauth.token.validator.services.application_mark_used", side_effect=OperationalError("down")):
        failed = exchange(Client(), app, code, verifier)
    assert failed.status_code == 503
    assert not AccessToken.objects.exists() and Grant.objects.get(application=app).used_at is None
    assert exchange(Client(), app, code, verifier).status_code == 200
