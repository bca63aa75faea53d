"""The billing tests' keys hold credits:read (``live_secret``, ``test_secret``: tests/conftest.py)."""

import pytest


@pytest.fixture
def key_scopes():
    return ["credits:read"]
