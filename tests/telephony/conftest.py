"""One suite, two carriers: the ``line`` fixture runs a test on the simulator and on the Twilio adapter
against the local fake of Twilio (tests/support/twilio_fake)."""

import pytest

from apps.telephony import carriers
from tests.calls.callbacks import frozen_clock
from tests.support.twilio_line import SimulatedLine, TwilioLine, twilio_fake


@pytest.fixture
def clock():
    with frozen_clock() as clock:
        yield clock


@pytest.fixture
def twilio(settings):
    """The fake of Twilio, started on loopback, and the service pointed at it for live mode."""
    with twilio_fake(settings) as fake:
        yield fake


@pytest.fixture(params=["simulated", "twilio"])
def line(request, settings, clock):
    """The carrier of live mode, and how the test lets time pass on it (the worker runs what is due)."""
    if request.param == "simulated":
        settings.TELEPHONY_CARRIER = carriers.SIMULATED
        carriers._carrier.cache_clear()
        yield SimulatedLine(clock)
    else:
        with twilio_fake(settings) as fake:
            yield TwilioLine(clock, fake)
    carriers._carrier.cache_clear()
