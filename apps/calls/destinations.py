"""Which numbers the service calls (docs/design.md "Quotes and callback calls").

Refused: premium-rate and shared-cost numbers (as ``phonenumbers`` types them), the
international networks +881, +882 and +883 (satellite and global services, billed at
carrier-set prices), and any prefix of ``settings.BLOCKED_PREFIXES``. The carrier may refuse
more (``Carrier.check_destination``); both answer 422 ``destination_not_allowed``, param ``to``.
"""

import phonenumbers
from django.conf import settings

from apps.core.errors import ApiError
from apps.core.phones import readable

PARAM = "to"
INTERNATIONAL_NETWORKS = ("881", "882", "883")
REFUSED_TYPES = {
    phonenumbers.PhoneNumberType.PREMIUM_RATE: "a premium-rate number",
    phonenumbers.PhoneNumberType.SHARED_COST: "a shared-cost number",
}


def blocked_prefixes() -> tuple[str, ...]:
    """``settings.BLOCKED_PREFIXES`` as digits: an operator may write "+49 900" or "49900"."""
    return tuple(d for d in ("".join(c for c in p if c.isdigit()) for p in settings.BLOCKED_PREFIXES) if d)


def destination_refusal(number: str, parsed: phonenumbers.PhoneNumber) -> str | None:
    """Why the service does not call ``number`` (canonical E.164, apps.core.phones), or None when it does."""
    digits = number.lstrip("+")
    if digits.startswith(INTERNATIONAL_NETWORKS):
        return "a number of an international network (+881, +882, +883)"
    kind = REFUSED_TYPES.get(phonenumbers.number_type(parsed))
    if kind is not None:
        return kind
    if digits.startswith(blocked_prefixes()):
        return "a number in a blocked range"
    return None


def destination_check(number: str, parsed: phonenumbers.PhoneNumber, carrier) -> None:
    """Raise 422 ``destination_not_allowed`` for a number neither the service nor the carrier calls."""
    reason = destination_refusal(number, parsed)
    if reason is None:
        check = carrier.check_destination(to=number)
        reason = None if check.allowed else (check.reason or "a number the carrier does not call")
    if reason is not None:
        raise ApiError(
            "destination_not_allowed", f"{readable(number)} is {reason.rstrip('.')}: it cannot be called.", param=PARAM
        )
