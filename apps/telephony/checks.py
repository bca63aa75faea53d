"""System checks of the carrier settings (``manage.py check``)."""

from django.conf import settings
from django.core.checks import Error, Warning, register

from apps.core.checks import configured_class

from .carriers import CARRIERS, SIMULATED, TWILIO
from .carriers.base import Carrier


@register("telephony")
def check_carrier(app_configs=None, **kwargs):
    name = settings.TELEPHONY_CARRIER
    carrier_class, found = configured_class(
        "TELEPHONY_CARRIER",
        name,
        Carrier,
        path=CARRIERS.get(name, name),
        kind="a Carrier",
        hint=f"Use {SIMULATED!r}, {TWILIO!r} or the dotted path of a Carrier class.",
        ids=("telephony.E001", "telephony.E002"),
    )
    if carrier_class is None:
        return found
    if carrier_class.name == SIMULATED and not settings.DEBUG:
        found.append(
            Warning(
                "Live-mode calls run on the simulator: nothing rings, and live balances pay for simulated calls.",
                hint="Set TELEPHONY_CARRIER=twilio with TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN "
                "(docs/operations.md, 'A real carrier'); test mode stays on the simulator either way.",
                id="telephony.W001",
            )
        )
    if carrier_class.name == TWILIO:
        missing = [key for key in ("TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN") if not getattr(settings, key, "")]
        if missing:
            found.append(
                Error(
                    f"TELEPHONY_CARRIER=twilio needs {' and '.join(missing)}.",
                    hint="Both are on the Twilio console's account page (docs/operations.md).",
                    id="telephony.E003",
                )
            )
        if not settings.TWILIO_INTELLIGENCE_SERVICE_SID:
            found.append(
                Warning(
                    "TWILIO_INTELLIGENCE_SERVICE_SID is not set: transcripts of recorded calls will fail.",
                    hint="Create a Voice Intelligence service in the Twilio console and set its GA... id.",
                    id="telephony.W002",
                )
            )
    return found
