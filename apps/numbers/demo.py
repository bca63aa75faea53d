"""Demo numbers and caller IDs for ``manage.py seed_demo`` (apps/demo), in one mode.

Live: four virtual numbers rented over the last months (one since canceled), each
with its monthly rentals as charges, and two verified caller IDs, one the default.
Test mode: a smaller set. Every ``messages_opt_in`` is left off: only the account
holder turns it on. Deterministic for a given ``rng`` and ``now``.
"""

import calendar
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

import phonenumbers
from django.conf import settings
from django.db import transaction

from apps.core.ids import SeededIds
from apps.core.money import to_minor
from apps.core.phones import readable

from .models import CALLER_ID_PREFIX, NUMBER_ID_PREFIX, CallerId, Number, NumberStatus, NumberType
from .services import caller_id_fill_country, number_fill_country, numbers_delete_all

# Monthly rental by type, major units of the service currency (demo prices).
MONTHLY = {
    NumberType.LOCAL: Decimal("1.15"),
    NumberType.MOBILE: Decimal("3.50"),
    NumberType.NATIONAL: Decimal("1.50"),
    NumberType.TOLL_FREE: Decimal("2.00"),
}
_KINDS = {
    NumberType.LOCAL: phonenumbers.PhoneNumberType.FIXED_LINE,
    NumberType.MOBILE: phonenumbers.PhoneNumberType.MOBILE,
    NumberType.NATIONAL: phonenumbers.PhoneNumberType.FIXED_LINE,
    NumberType.TOLL_FREE: phonenumbers.PhoneNumberType.TOLL_FREE,
}


@dataclass(frozen=True)
class DemoNumber:
    region: str
    type: str
    label: str
    sms: bool
    rented_days_ago: int
    canceled_days_ago: int | None = None


NUMBERS = {
    True: (
        DemoNumber("US", NumberType.LOCAL, "Main line", sms=True, rented_days_ago=170),
        DemoNumber("GB", NumberType.LOCAL, "UK office", sms=False, rented_days_ago=125),
        DemoNumber("DE", NumberType.MOBILE, "Travel SIM", sms=True, rented_days_ago=80),
        DemoNumber("US", NumberType.TOLL_FREE, "Support line", sms=False, rented_days_ago=160, canceled_days_ago=65),
    ),
    False: (
        DemoNumber("US", NumberType.LOCAL, "Test line", sms=True, rented_days_ago=40),
        DemoNumber("GB", NumberType.MOBILE, "", sms=True, rented_days_ago=20),
    ),
}
# The account holder's own phones, verified as caller IDs: (region, phonenumbers type, verified days ago).
CALLER_IDS = {
    True: (("US", phonenumbers.PhoneNumberType.MOBILE, 175), ("GB", phonenumbers.PhoneNumberType.MOBILE, 90)),
    False: (("US", phonenumbers.PhoneNumberType.MOBILE, 30),),
}


def seed(*, user, livemode: bool, rng, now: datetime) -> list[dict]:
    """Replace the account's numbers and caller IDs in ``livemode``; return the rentals as charges
    (``number_rental``, negative minor units, the number as source), oldest first."""
    ids = SeededIds(f"{user.pk}:{livemode}:numbers:{rng.getrandbits(64)}")
    currency = settings.SERVICE_CURRENCY
    numbers, charges = [], []
    for plan in NUMBERS[livemode]:
        rented = _daytime(rng, now - timedelta(days=plan.rented_days_ago))
        ended = now if plan.canceled_days_ago is None else _daytime(rng, now - timedelta(days=plan.canceled_days_ago))
        row = Number(
            id=ids.next(NUMBER_ID_PREFIX),
            user=user,
            livemode=livemode,
            created=rented,
            number=demo_number(rng, plan.region, _KINDS[plan.type], free=_free_for(user, livemode)),
            type=plan.type,
            voice=True,
            sms=plan.sms,
            status=NumberStatus.ACTIVE if plan.canceled_days_ago is None else NumberStatus.CANCELED,
            label=plan.label,
        )
        number_fill_country(number=row)
        renewals = _monthly(rented, until=ended)
        row.renews_at = _add_months(rented, len(renewals)) if row.status == NumberStatus.ACTIVE else None
        numbers.append(row)
        price = int(to_minor(MONTHLY[plan.type], currency))
        charges += [
            {
                "type": "number_rental",
                "amount": -price,
                "source": row.id,
                "description": f"Number {readable(row.number)}, monthly rental",
                "created": moment,
            }
            for moment in renewals
        ]
    caller_ids = []
    for position, (region, kind, days) in enumerate(CALLER_IDS[livemode]):
        verified = _daytime(rng, now - timedelta(days=days))
        row = CallerId(
            id=ids.next(CALLER_ID_PREFIX),
            user=user,
            livemode=livemode,
            created=verified,
            number=demo_number(rng, region, kind),
            verified_at=verified,
            is_default=position == 0,
        )
        caller_ids.append(caller_id_fill_country(caller_id=row))
    with transaction.atomic():
        numbers_delete_all(user=user, livemode=livemode)
        Number.objects.bulk_create(numbers)
        CallerId.objects.bulk_create(caller_ids)
    return sorted(charges, key=lambda charge: charge["created"])


def _free_for(user, livemode: bool):
    """Whether no other account holds a number in this mode: a number belongs to one account in each
    mode (its messages and calls reach that account only), so two accounts seeded alike get different ones."""

    def free(number: str) -> bool:
        return not Number.objects.filter(livemode=livemode, number=number).exclude(user=user).exists()

    return free


def demo_number(rng, region: str, kind, *, free=None) -> str:
    """A valid number of that region and kind: phonenumbers' example with new last digits; with ``free``,
    one it accepts."""
    example = phonenumbers.example_number_for_type(region, kind) or phonenumbers.example_number(region)
    national = phonenumbers.national_significant_number(example)  # keeps Italy's leading 0
    for _attempt in range(200):
        candidate = phonenumbers.parse(f"+{example.country_code}{national[:-4]}{rng.randint(0, 9999):04d}", None)
        if phonenumbers.is_valid_number(candidate):
            e164 = phonenumbers.format_number(candidate, phonenumbers.PhoneNumberFormat.E164)
            if free is None or free(e164):
                return e164
    raise RuntimeError(f"no free demo number left in {region}")


def _daytime(rng, day: datetime) -> datetime:
    return day.replace(hour=rng.randint(9, 18), minute=rng.randint(0, 59), second=rng.randint(0, 59), microsecond=0)


def _add_months(moment: datetime, months: int) -> datetime:
    month = moment.month - 1 + months
    year, month = moment.year + month // 12, month % 12 + 1
    return moment.replace(year=year, month=month, day=min(moment.day, calendar.monthrange(year, month)[1]))


def _monthly(rented: datetime, *, until: datetime) -> list[datetime]:
    """The rental moments: the day it was rented, then each monthly renewal up to ``until``."""
    moments, months = [], 0
    while (moment := _add_months(rented, months)) <= until:
        moments.append(moment)
        months += 1
    return moments
