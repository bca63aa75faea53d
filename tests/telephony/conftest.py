"""The telephony tests' clock; ``line`` and ``twilio`` are the suite's (tests/support/twilio_line.py)."""

import pytest

from tests.calls.callbacks import frozen_clock
from tests.support.twilio_line import TwilioLine


@pytest.fixture
def clock():
    with frozen_clock() as clock:
        yield clock


@pytest.fixture
def on_twilio(twilio, clock):
    """The Twilio adapter alone, on the fake, with the test's clock."""
    return TwilioLine(clock, twilio)
