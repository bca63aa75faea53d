"""Demo calls for ``manage.py seed_demo`` (apps/demo): months of plausible calls in one mode.

Both directions, many to or from the given contacts' numbers, a few live ones
(your phone ringing, ringing, in progress), some with transcripts. The live ones go on:
their next events (you press 1, the callee answers, hangs up) are durable work due within
minutes (``play``, run by the worker, or by a read of the call), and each ends completed
with its charge by the billing rule, so no call stays live for hours after seeding. Outbound
calls carry the rate the deck gives their number (``rate_for``) and are costed
by the billing rule (``apps.calls.pricing``), so each completed call's charge
is exactly the amount the API shows for it. Inbound calls are free (demo
pricing): no charge. Deterministic for a given ``rng`` and ``now``.
"""

from datetime import datetime, timedelta
from decimal import Decimal

import phonenumbers
from django.conf import settings

from apps.core.ids import SeededIds
from apps.core.money import to_minor
from apps.jobs.public import enqueue
from apps.numbers.selectors import caller_id_default, voice_number_values
from apps.telephony.public import SIMULATED
from apps.telephony.public import events as ev

from . import spoken
from .demo_transcripts import demo_transcript, other_side
from .models import CALL_PREFIX, TRANSCRIPT_PREFIX, Call, Direction, Status, Transcript
from .pricing import usage_of
from .states import call_apply_event

CALLS = {True: 320, False: 40}  # live: a few hundred; test mode: a smaller set
DAYS = {True: 175, False: 28}
CONTACT_SHARE = 0.7  # of calls, to or from a contact's number
TRANSCRIBED_SHARE = 0.18  # of completed calls of 45 s or more
TRANSCRIPT_PRICE = Decimal("0.05")  # major units a summary (demo price)
FALLBACK_CALLER_ID = "+14155550123"
FALLBACK_NUMBER = "+14155550199"
# Countries of the numbers called that are not contacts'; example numbers of phonenumbers, varied.
STRANGER_REGIONS = ("US", "GB", "DE", "FR", "ES", "MX", "IN", "BR", "AU", "JP", "CA", "IT", "NL")
OUTBOUND_OUTCOMES = (
    (Status.COMPLETED, 78),
    (Status.NO_ANSWER, 9),
    (Status.BUSY, 5),
    (Status.CANCELED, 5),
    (Status.FAILED, 3),
)
INBOUND_OUTCOMES = ((Status.COMPLETED, 84), (Status.NO_ANSWER, 14), (Status.CANCELED, 2))


def seed(*, user, livemode: bool, rng, now: datetime, contacts, rate_for) -> list[dict]:
    """Replace the account's calls in ``livemode`` with demo calls ending at ``now``; return their charges.

    ``contacts``: the contacts app's Contact objects (``id``, ``name``,
    ``phone_numbers``); ``rate_for(e164)``: the deck's rate for a number
    (``per_minute`` in major units, ``first_seconds``, ``next_seconds``,
    ``currency``) or None.
    """
    Call.objects.filter(user_id=user.pk, livemode=livemode).delete()  # transcripts go with them
    ids = SeededIds(f"{user.pk}:{livemode}:{rng.getrandbits(64)}")
    own = _own_numbers(user=user, livemode=livemode)
    people = [(c, n) for c in contacts for n in _numbers_of(c)]
    currency = settings.SERVICE_CURRENCY
    start = now - timedelta(days=DAYS[livemode])
    moments = sorted(_moment(rng, start, now - timedelta(minutes=30)) for _ in range(CALLS[livemode]))
    calls, transcripts, charges = [], [], []
    references: set[str] = set()  # every transcript's reference numbers, none shared
    for created in moments:
        call = _ended_call(
            rng, user=user, livemode=livemode, created=created, own=own, people=people, rate_for=rate_for
        )
        if call is None:
            continue
        call.id = ids.next(CALL_PREFIX)
        calls.append(call)
        usage = usage_of(call, now)
        if call.direction == Direction.OUTBOUND and usage.amount:
            length = spoken.length(usage.duration)
            charges.append(
                {
                    "type": "call",
                    "amount": -usage.amount,
                    "source": call.id,
                    "description": f"Call to {spoken.number(call.to_number)} ({length})",
                    "created": call.ended_at,
                }
            )
        if call.status == Status.COMPLETED and usage.duration >= 45 and rng.random() < TRANSCRIBED_SHARE:
            name = getattr(call, "_demo_name", None)
            country = _country(other_side(call))
            transcripts.append(demo_transcript(rng, call, country=country, name=name, taken=references))
            transcripts[-1].id = ids.next(TRANSCRIPT_PREFIX)
            charges.append(
                {
                    "type": "transcript",
                    "amount": -int(to_minor(TRANSCRIPT_PRICE, currency)),
                    "source": call.id,
                    "description": f"Call summary: call with {spoken.number(other_side(call))}",
                    "created": transcripts[-1].created,
                }
            )
    live = _live_calls(rng, user=user, livemode=livemode, now=now, own=own, people=people, rate_for=rate_for)
    for call in live:
        call.id = ids.next(CALL_PREFIX)
        calls.append(call)
    Call.objects.bulk_create(calls, batch_size=500)
    Transcript.objects.bulk_create(transcripts, batch_size=500)
    for call in live:
        _schedule_the_rest(rng, call, now=now)
    return charges


EVENT_JOB = "calls.demo_event"


def _schedule_the_rest(rng, call: Call, *, now: datetime) -> None:
    """The live call's next events as durable work, each due at its time: the call ends within minutes."""
    at, script = now, []
    if call.status == Status.RINGING_YOU:
        at += timedelta(seconds=rng.randint(2, 6))
        script.append((ev.YOU_PRESSED_1, at))
    if call.status in (Status.RINGING_YOU, Status.RINGING):
        at += timedelta(seconds=rng.randint(4, 12))
        script.append((ev.CALLEE_ANSWERED, at))
    at += timedelta(seconds=rng.randint(40, 150))
    script.append((rng.choice((ev.CALLEE_HUNG_UP, ev.YOU_HUNG_UP)), at))
    for kind, due in script:
        # The call's created time names this seeding's call: a second seed_demo writes the same ids
        # again, and the first one's work left waiting must not move the new calls.
        payload = {"call": call.id, "created": call.created.isoformat(), "kind": kind, "at": due.isoformat()}
        enqueue(EVENT_JOB, payload, run_at=due, subject=call.id)


def play(payload: dict) -> None:
    """Apply one scripted event of a demo call (the job ``EVENT_JOB``, in the row's transaction).

    Through the one writer of a call's state (``states.call_apply_event``): the table is the
    callbacks', an ended outbound call is charged by the billing rule and the account's webhooks
    hear of it; an event the table has no row for, or for a call that is gone or seeded again,
    changes nothing."""
    call_apply_event(
        call_id=payload["call"],
        kind=payload["kind"],
        at=datetime.fromisoformat(payload["at"]),
        seeded_at=datetime.fromisoformat(payload["created"]),
    )


def _numbers_of(contact) -> list[str]:
    return [phone.number for phone in contact.phone_numbers.all()]


def _own_numbers(*, user, livemode: bool) -> dict:
    """The account's caller ID (outbound ``from``) and voice numbers (inbound ``to``), from the numbers
    app's rows when it has seeded them."""
    own = {"caller_id": FALLBACK_CALLER_ID, "numbers": [FALLBACK_NUMBER]}
    default = caller_id_default(user=user, livemode=livemode)
    numbers = voice_number_values(user=user, livemode=livemode)
    if default is not None:
        own["caller_id"] = default.number
    if numbers:
        own["numbers"] = numbers
    return own


def _moment(rng, start: datetime, end: datetime) -> datetime:
    """A time between ``start`` and ``end``, mostly in the daytime (UTC)."""
    day = start + timedelta(seconds=rng.uniform(0, (end - start).total_seconds()))
    if rng.random() < 0.85:
        day = day.replace(hour=rng.randint(8, 20), minute=rng.randint(0, 59), second=rng.randint(0, 59))
    return min(max(day, start), end)


def _stranger(rng) -> str:
    """A plausible number nobody in the address book has: an example number with new last digits."""
    region = rng.choice(STRANGER_REGIONS)
    kind = rng.choice((phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE))
    example = phonenumbers.example_number_for_type(region, kind) or phonenumbers.example_number(region)
    national = str(example.national_number)
    national = national[:-4] + f"{rng.randint(0, 9999):04d}"
    return f"+{example.country_code}{national}"


def _counterpart(rng, people) -> tuple[object | None, str]:
    if people and rng.random() < CONTACT_SHARE:
        return rng.choice(people)
    return None, _stranger(rng)


def _country(e164: str) -> str:
    try:
        return phonenumbers.region_code_for_number(phonenumbers.parse(e164, None)) or ""
    except phonenumbers.NumberParseException:
        return ""


def _talk_seconds(rng) -> int:
    roll = rng.random()
    if roll < 0.3:
        return rng.randint(5, 59)
    if roll < 0.85:
        return rng.randint(60, 600)
    return rng.randint(601, 2700)


def _pick(rng, weighted) -> str:
    values, weights = zip(*weighted, strict=True)
    return rng.choices(values, weights=weights)[0]


def _rated(*, direction: str, number: str, rate_for) -> dict | None:
    """The rate fields of a call: the deck's for an outbound number (None: not callable), free inbound."""
    if direction == Direction.INBOUND:
        return {
            "per_minute_amount_decimal": Decimal(0),
            "first_seconds": 60,
            "next_seconds": 60,
            "currency": settings.SERVICE_CURRENCY,
        }
    rate = rate_for(number)
    if rate is None:
        return None
    return {
        "per_minute_amount_decimal": to_minor(Decimal(rate.per_minute), rate.currency),
        "first_seconds": rate.first_seconds,
        "next_seconds": rate.next_seconds,
        "currency": rate.currency,
    }


def _call(rng, *, user, livemode, created, own, people, rate_for, direction=None) -> Call | None:
    direction = direction or (Direction.OUTBOUND if rng.random() < 0.65 else Direction.INBOUND)
    for _attempt in range(5):  # a number the deck has no rate for is not callable: pick another
        contact, other = _counterpart(rng, people)
        ours = own["caller_id"] if direction == Direction.OUTBOUND else rng.choice(own["numbers"])
        caller, called = (ours, other) if direction == Direction.OUTBOUND else (other, ours)
        rated = _rated(direction=direction, number=called, rate_for=rate_for)
        if rated is not None:
            break
    else:
        return None
    call = Call(
        user=user,
        livemode=livemode,
        created=created,
        direction=direction,
        from_number=caller,
        to_number=called,
        to_country=_country(called),
        contact_id=contact.id if contact is not None else "",
        **rated,
    )
    call._demo_name = contact.name if contact is not None else None
    return call


def _ended_call(rng, *, created, **kwargs) -> Call | None:
    call = _call(rng, created=created, **kwargs)
    if call is None:
        return None
    outcomes = OUTBOUND_OUTCOMES if call.direction == Direction.OUTBOUND else INBOUND_OUTCOMES
    call.status = _pick(rng, outcomes)
    rang = timedelta(seconds=rng.randint(4, 28))
    if call.status == Status.COMPLETED:
        call.answered_at = created + rang
        call.duration = _talk_seconds(rng)
        call.ended_at = call.answered_at + timedelta(seconds=call.duration)
    else:
        call.duration = 0
        call.ended_at = created + (timedelta(seconds=1) if call.status == Status.FAILED else rang)
    return call


def _live_calls(rng, *, user, livemode, now, own, people, rate_for) -> list[Call]:
    """Calls going on at ``now``: your phone ringing first, the other side ringing, one in progress."""
    shapes = (
        [(Status.RINGING_YOU, 8), (Status.RINGING, 25), (Status.IN_PROGRESS, 190)]
        if livemode
        else [(Status.IN_PROGRESS, 75)]
    )
    live = []
    for status, seconds_ago in shapes:
        created = now - timedelta(seconds=seconds_ago)
        call = _call(
            rng,
            user=user,
            livemode=livemode,
            created=created,
            own=own,
            people=people,
            rate_for=rate_for,
            direction=Direction.OUTBOUND,
        )
        if call is None:
            continue
        call.status = status
        # Played by the simulator from here on (``play``): a read of the call applies what is due.
        call.carrier = SIMULATED
        call.ringing_you_at = created
        if status != Status.RINGING_YOU:
            call.ringing_at = created + timedelta(seconds=rng.randint(3, 5))
        if status == Status.IN_PROGRESS:
            call.answered_at = created + timedelta(seconds=rng.randint(6, 15))
        live.append(call)
    return live
