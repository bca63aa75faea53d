"""Fixtures of the tests of what the user decides: an account ready to call (the clock is every folder's)."""

import pytest

from tests.calls.callbacks import ready
from tests.support.factories import UserFactory


@pytest.fixture
def owner(db):
    user = UserFactory(email="owner@example.com", display_name="Olive Owner")
    ready(user)
    return user
