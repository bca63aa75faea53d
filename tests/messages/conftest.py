"""The messages tests' keys hold messages:read (``live_secret``, ``test_secret``: tests/conftest.py)."""

import pytest

from tests.support.factories import make_api_key

SCOPES = ["messages:read"]


@pytest.fixture
def key_scopes():
    return SCOPES


@pytest.fixture
def history_secret(user):
    return make_api_key(user, scopes=[*SCOPES, "messages:history"])[1]
