"""The telephony tests' clock; ``line`` and ``twilio`` are the suite's (tests/support/twilio_line.py)."""

import pytest

from tests.calls.callbacks import frozen_clock


@pytest.fixture
def clock():
    with frozen_clock() as clock:
        yield clock
