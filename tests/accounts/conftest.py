"""Fixtures of the accounts tests."""

import pytest

from tests.support.factories import UserFactory, make_api_key
from tests.support.oauth import MCP, issue, make_client


@pytest.fixture
def credentials(user):
    """Two apps (one on each resource) and two API keys of the user, plus a stranger's."""
    app_a, app_b = make_client(), make_client()
    stranger = UserFactory()
    return {
        "apps": (app_a, app_b),
        "tokens": [issue(user, app_a), issue(user, app_b, resource=MCP)],
        "keys": [make_api_key(user)[1], make_api_key(user, livemode=False)[1]],
        "stranger_token": issue(stranger, app_a),
        "stranger_key": make_api_key(stranger)[1],
    }
