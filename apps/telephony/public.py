"""What other apps may use of the carrier boundary (the only module they import; .importlinter).

- ``carrier_for(livemode=)`` / ``carrier_named(name)``: the carrier that serves a mode, or
  whose callbacks land on ``/carrier/<name>/...``; ``SIMULATED`` is the simulator's name.
- The requests an app hands a carrier (``CallbackRequest``, ``TranscriptionRequest``) and
  its refusal (``CarrierRefused``).
- ``events``: the normalized vocabulary (``events.YOU_RINGING``, ``events.CarrierEvent``,
  ``events.deliver``), which the receivers named in ``settings.TELEPHONY_RECEIVERS`` apply.
- ``simulator``: the simulator's table of magic numbers, for the pages that document it.

Adapters and the simulator's player stay inside: an app never reaches a carrier but
through ``carrier_for``.
"""

from . import events, simulator
from .carriers import SIMULATED, carrier_for, carrier_named
from .carriers.base import CallbackRequest, CarrierRefused, TranscriptionRequest
from .events import CarrierEvent

__all__ = [
    "SIMULATED",
    "CallbackRequest",
    "CarrierEvent",
    "CarrierRefused",
    "TranscriptionRequest",
    "carrier_for",
    "carrier_named",
    "events",
    "simulator",
]
