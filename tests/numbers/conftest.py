"""The numbers tests' keys hold numbers:read (``live_secret``, ``test_secret``: tests/conftest.py)."""

import pytest


@pytest.fixture
def key_scopes():
    return ["numbers:read"]
