"""``line``, ``twilio`` and ``clock`` are the suite's (tests/support/twilio_line.py); here, Twilio alone."""

import pytest

from tests.support.twilio_line import TwilioLine


@pytest.fixture
def on_twilio(twilio, clock):
    """The Twilio adapter alone, on the fake, with the test's clock."""
    return TwilioLine(clock, twilio)
