"""The README's setting for developing a client: RATELIMIT_ENABLED=0 relaxes the registration
and sign-in budgets that a client under development keeps running into (and they apply without it)."""

import pytest

from apps.ratelimit import budgets

pytestmark = pytest.mark.django_db

REGISTRATION = {
    "client_name": "Client in development",
    "redirect_uris": ["http://127.0.0.1:53682/callback"],
    "application_type": "native",
    "token_endpoint_auth_method": "none",
}


def register(client):
    return client.post("/oauth/register", REGISTRATION, content_type="application/json").status_code


def failed_sign_in(client, user):
    return client.post("/login", {"username": user.email, "password": "not-the-password"}).status_code


@pytest.fixture
def limiter_off(settings):
    settings.RATELIMIT = {**settings.RATELIMIT, "ENABLED": False}


def test_registrations_past_the_hourly_budget_are_refused_with_the_limiter_on(client):
    statuses = [register(client) for _ in range(budgets.REGISTER_IP_HOURLY.burst + 1)]
    assert statuses[:-1] == [201] * budgets.REGISTER_IP_HOURLY.burst
    assert statuses[-1] == 429


def test_with_the_limiter_off_registration_is_not_budgeted(client, limiter_off):
    assert {register(client) for _ in range(budgets.REGISTER_IP_HOURLY.burst + 5)} == {201}


def test_failed_sign_ins_are_budgeted_with_the_limiter_on(client, user):
    statuses = [failed_sign_in(client, user) for _ in range(budgets.SIGNIN_FAILURES_ACCOUNT.burst + 1)]
    assert statuses[-1] == 429


def test_with_the_limiter_off_failed_sign_ins_are_not_budgeted(client, user, limiter_off):
    statuses = {failed_sign_in(client, user) for _ in range(budgets.SIGNIN_FAILURES_IP.burst + 5)}
    assert statuses == {200}  # the form again, with its error
