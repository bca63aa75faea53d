"""Fixtures of the tests of what the user decides: an account ready to call and its clock."""

import pytest

from tests.calls.callbacks import frozen_clock, ready
from tests.support.factories import UserFactory


@pytest.fixture
def owner(db):
    user = UserFactory(email="owner@example.com", display_name="Olive Owner")
    ready(user)
    return user


@pytest.fixture
def clock():
    with frozen_clock() as clock:
        yield clock
