"""Demo contacts for ``manage.py seed_demo`` (apps/demo), in one mode.

Live: a few dozen people and businesses from around the world, most with two or
three numbers of their country (mobile, home, work); test mode: a smaller set.
Written through ``contacts_create`` so that search terms follow. Deterministic
for a given ``rng`` and ``now``.
"""

from datetime import datetime, timedelta

import phonenumbers

from apps.core.ids import SeededIds

from .models import CONTACT_ID_PREFIX, Contact, PhoneLabel
from .services import ContactInput, PhoneInput, contacts_create, contacts_delete_all

COUNT = {True: 36, False: 8}
# (name, country of their numbers); businesses are reached at work numbers.
PEOPLE = (
    ("José Álvarez", "ES"),
    ("Ana López", "MX"),
    ("Łukasz Nowak", "PL"),
    ("Zoë O'Brien", "IE"),
    ("Jean-Luc Martin", "FR"),
    ("Camille Laurent", "FR"),
    ("Nguyễn Văn An", "VN"),
    ("Björn Andersson", "SE"),
    ("Jürgen Müller", "DE"),
    ("Hannah Schmidt", "DE"),
    ("Søren Nielsen", "DK"),
    ("Aiko Tanaka", "JP"),
    ("Priya Sharma", "IN"),
    ("Arjun Patel", "GB"),
    ("Chen Wei", "CN"),
    ("Fatima Haddad", "MA"),
    ("Olusegun Adeyemi", "NG"),
    ("Kofi Mensah", "GH"),
    ("Mateo Rossi", "IT"),
    ("Sofia Costa", "PT"),
    ("Lucas Oliveira", "BR"),
    ("Emma Johnson", "US"),
    ("Noah Williams", "US"),
    ("Liam Smith", "GB"),
    ("Olivia Brown", "AU"),
    ("Elif Yılmaz", "TR"),
    ("Ahmed Hassan", "EG"),
    ("Isabella García", "ES"),
    ("Diego Fernández", "AR"),
    ("Sipho Dlamini", "ZA"),
    ("Min-jun Kim", "KR"),
    ("Ingrid Hansen", "NO"),
    ("Mikko Virtanen", "FI"),
    ("Eva Nováková", "CZ"),
    ("Siobhán Kelly", "IE"),
    ("Grace Wanjiru", "KE"),
    ("Brightside Dental", "US"),
    ("Metro Fiber Support", "GB"),
    ("Casa Lucia Trattoria", "IT"),
)
BUSINESS_WORDS = ("Dental", "Support", "Trattoria")
_MOBILE = phonenumbers.PhoneNumberType.MOBILE
_FIXED = phonenumbers.PhoneNumberType.FIXED_LINE


def seed(*, user, livemode: bool, rng, now: datetime) -> list[Contact]:
    """Replace the account's contacts in ``livemode``; return them (phone numbers prefetched)."""
    salt = rng.getrandbits(64)
    people = rng.sample(PEOPLE, COUNT[livemode])
    contacts = [
        ContactInput(
            name=name,
            phone_numbers=_numbers(rng, region, business=any(word in name for word in BUSINESS_WORDS)),
            created=now - timedelta(days=rng.uniform(200, 400)),
        )
        for name, region in people
    ]
    contacts_delete_all(user=user, livemode=livemode)
    made = contacts_create(user=user, livemode=livemode, contacts=contacts, ids=_ids(user, livemode, salt))
    return made


def _numbers(rng, region: str, *, business: bool) -> list[PhoneInput]:
    if business:
        return [PhoneInput(demo_number(rng, region, _FIXED), PhoneLabel.WORK)]
    plan = [(_MOBILE, PhoneLabel.MOBILE)]
    roll = rng.random()
    if roll < 0.5:
        plan.append((_FIXED, PhoneLabel.HOME))
    elif roll < 0.8:
        plan += [(_FIXED, PhoneLabel.WORK), (_FIXED, rng.choice((PhoneLabel.HOME, PhoneLabel.OTHER)))]
    numbers = dict.fromkeys(demo_number(rng, region, kind) for kind, _ in plan)  # no number twice
    return [PhoneInput(number, label) for number, (_, label) in zip(numbers, plan, strict=False)]


def demo_number(rng, region: str, kind) -> str:
    """A valid number of that region and kind: phonenumbers' example with new last digits."""
    example = phonenumbers.example_number_for_type(region, kind) or phonenumbers.example_number(region)
    national = phonenumbers.national_significant_number(example)  # keeps Italy's leading 0
    for _attempt in range(20):
        candidate = phonenumbers.parse(f"+{example.country_code}{national[:-4]}{rng.randint(0, 9999):04d}", None)
        if phonenumbers.is_valid_number(candidate):
            return phonenumbers.format_number(candidate, phonenumbers.PhoneNumberFormat.E164)
    return phonenumbers.format_number(example, phonenumbers.PhoneNumberFormat.E164)


def _ids(user, livemode: bool, salt: int):
    ids = SeededIds(f"{user.pk}:{livemode}:contacts:{salt}")
    while True:
        yield ids.next(CONTACT_ID_PREFIX)
