"""The contacts tests' keys hold contacts:read (``live_secret``, ``test_secret``: tests/conftest.py)."""

import pytest


@pytest.fixture
def key_scopes():
    return ["contacts:read"]
