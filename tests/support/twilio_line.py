"""A live-mode carrier under a test's control: the simulator, or the Twilio adapter on the local fake.

One suite, two carriers: a test that asks for ``line`` runs on each (the fixture is
parametrized), so the boundary is checked by both. ``line.wait(seconds)`` moves the test's
``clock``, lets the carrier do what is due (the fake's callbacks) and runs the worker, as
production would in that time. ``twilio`` is the fake alone, the service pointed at it.
"""

import contextlib
from urllib.parse import urlencode

import pytest
from django.test import Client

from apps.jobs.public import run_due
from apps.telephony import carriers
from tests.support.twilio_fake import AUTH_TOKEN, SERVICE_SID, FakeTwilio, path_of


def _deliver(url: str, params: dict, headers: dict):
    # Twilio posts form-encoded, without a session or CSRF token.
    response = Client(enforce_csrf_checks=True).post(
        path_of(url), urlencode(params), content_type="application/x-www-form-urlencoded", headers=headers
    )
    return response.status_code, response.content.decode()


@contextlib.contextmanager
def twilio_fake(settings):
    fake = FakeTwilio(deliver=_deliver, base_url=settings.BASE_URL).start()
    settings.TELEPHONY_CARRIER = carriers.TWILIO
    settings.TWILIO_ACCOUNT_SID = fake.account_sid
    settings.TWILIO_AUTH_TOKEN = AUTH_TOKEN
    settings.TWILIO_API_BASE = fake.api_base
    settings.TWILIO_INTELLIGENCE_SERVICE_SID = SERVICE_SID
    carriers._carrier.cache_clear()
    try:
        yield fake
        assert not fake.violations, fake.violations
    finally:
        fake.stop()
        carriers._carrier.cache_clear()


class SimulatedLine:
    name = "simulated"

    def __init__(self, clock):
        self.clock = clock

    def wait(self, seconds: float) -> None:
        for _ in range(int(seconds)):
            run_due(now=self.clock.tick(1))
        if seconds % 1:
            run_due(now=self.clock.tick(seconds % 1))

    def sms(self, *, number, sender: str, body: str) -> None:
        from apps.messages.services import message_arrive

        message_arrive(number=number, sender=sender, body=body)


class TwilioLine(SimulatedLine):
    name = "twilio"

    def __init__(self, clock, fake: FakeTwilio):
        super().__init__(clock)
        self.fake = fake

    def wait(self, seconds: float) -> None:
        # A second at a time, as the fake's timeline and the worker interleave in production.
        for _ in range(int(seconds)):
            self.clock.tick(1)
            self.fake.advance()
            run_due(now=self.clock.at)

    def sms(self, *, number, sender: str, body: str) -> None:
        self.fake.send_sms(to=number.number, sender=sender, body=body)
        run_due(now=self.clock.at)


@pytest.fixture
def clock():
    """``timezone.now()`` held still, moved by the test (a module's own ``clock`` fixture takes its place)."""
    from tests.calls.callbacks import frozen_clock

    with frozen_clock() as clock:
        yield clock


@pytest.fixture
def twilio(settings):
    """The fake of Twilio, started on loopback, and the service pointed at it for live mode."""
    with twilio_fake(settings) as fake:
        yield fake


@pytest.fixture(params=[carriers.SIMULATED, carriers.TWILIO])
def line(request, settings, clock):
    """The carrier of live mode, and how the test lets time pass on it."""
    if request.param == carriers.SIMULATED:
        settings.TELEPHONY_CARRIER = carriers.SIMULATED
        carriers._carrier.cache_clear()
        yield SimulatedLine(clock)
    else:
        with twilio_fake(settings) as fake:
            yield TwilioLine(clock, fake)
    carriers._carrier.cache_clear()
