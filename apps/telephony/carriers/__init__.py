"""Which carrier serves a mode: ``settings.TELEPHONY_CARRIER`` for live mode, the simulator for test mode.

``TELEPHONY_CARRIER`` is a name of ``CARRIERS`` or the dotted path of a ``Carrier`` class,
read at each call so that ``override_settings`` works.
"""

import functools

from django.conf import settings
from django.utils.module_loading import import_string

from .base import Carrier

SIMULATED = "simulated"
TWILIO = "twilio"
CARRIERS = {
    SIMULATED: "apps.telephony.carriers.simulated.SimulatedCarrier",
    TWILIO: "apps.telephony.carriers.twilio.carrier.TwilioCarrier",
}


@functools.lru_cache(maxsize=8)
def _carrier(path: str) -> Carrier:
    return import_string(CARRIERS.get(path, path))()


def carrier_for(*, livemode: bool) -> Carrier:
    """The carrier of a call in ``livemode``; test mode never reaches a real carrier."""
    return _carrier(settings.TELEPHONY_CARRIER if livemode else SIMULATED)


def carrier_named(name: str) -> Carrier | None:
    """The carrier whose callbacks land on ``/carrier/<name>/...``; None for an unknown name."""
    if name not in CARRIERS and name != settings.TELEPHONY_CARRIER:
        return None
    carrier = _carrier(name)
    return carrier if carrier.name == name else None
