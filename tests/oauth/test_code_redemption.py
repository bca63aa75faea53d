"""A code used between an exchange's read and its write (docs/spec.md 3.3, 7.3, 8.3).

An exchange reads the code, checks it, then writes the tokens; the write redeems the
code only if it is still unused (apps/oauth/token/issuing.py). Two exchanges of one
code, or an exchange and a disconnect, can interleave there: these tests put the other
one in that gap, on whichever database the suite runs (tests/oauth/test_races.py races
real threads on PostgreSQL).
"""

from unittest import mock

import pytest
from django.test import Client
from django.utils import timezone

from apps.oauth.connections.revocation import RECONNECT_DESCRIPTION
from apps.oauth.connections.services import connection_revoke
from apps.oauth.models import AccessToken, Grant, RefreshToken
from apps.oauth.token import lockouts
from apps.oauth.token.validator import Validator
from tests.support.oauth import exchange, get_code, make_client, pkce, signed_in

pytestmark = pytest.mark.django_db


def _between_read_and_write(action):
    checked = Validator.validate_code

    def validate_code(self, client_id, code, client, request, *args, **kwargs):
        valid = checked(self, client_id, code, client, request, *args, **kwargs)
        if valid:
            action(request.grant)
        return valid

    return mock.patch.object(Validator, "validate_code", validate_code)


def _exchange_with(user, action):
    app = make_client()
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
