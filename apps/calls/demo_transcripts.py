"""The demo's call summaries (apps/calls/demo.py): each in the language of the counterpart's
country, with reference numbers of its own."""

import re
from datetime import timedelta

from . import spoken
from .models import Call, Direction, Transcript

# (language, summary, action items, reference numbers); {name} is the other side.
TRANSCRIPTS = (
    (
        "en",
        "{name} confirmed the delivery for Friday morning between 8 and 10 and will text when the driver leaves.",
        ["Be home Friday 8-10 am", "Call {name} back if the slot changes"],
        ["ORD-48213"],
    ),
    (
        "en",
        "Dentist appointment moved from Tuesday to Thursday at 3:30 pm; bring the new insurance card.",
        ["Bring the new insurance card", "Add Thursday 3:30 pm to the calendar"],
        ["APPT-7741"],
    ),
    (
        "en",
        "{name} reported that the refund was approved; it should reach the card within five working days.",
        ["Check the card statement next week"],
        ["CASE 00291547", "RF-33810"],
    ),
    (
        "en",
        "Talked through the quote for the kitchen work with {name}: labour and materials come to 4,200, "
        "valid for 30 days.",
        ["Decide on the quote before the end of the month", "Send the floor plan to {name}"],
        ["Q-2291"],
    ),
    (
        "en",
        "The internet provider booked a technician visit for Monday afternoon after a line test showed a fault.",
        ["Be home Monday 1-5 pm", "Keep the router plugged in"],
        ["TKT-558120"],
    ),
    (
        "en",
        "{name} asked to move the weekly catch-up to Wednesdays and will share the agenda the day before.",
        ["Update the recurring meeting to Wednesday"],
        [],
    ),
    (
        "en",
        "Flight change confirmed: the return is now on the 14th at 18:05; no fee was charged.",
        ["Check in online 24 hours before"],
        ["PNR K7Q2XD"],
    ),
    (
        "en",
        "{name} called about the lease renewal: the rent stays the same if the new lease is signed this month.",
        ["Sign the renewal before the 30th", "Ask {name} for the document by email"],
        ["LEASE-1183"],
    ),
    (
        "es",
        "{name} confirmó la reserva para el sábado a las 21:00 para cuatro personas.",
        ["Llamar si cambia el número de personas"],
        ["RES-9045"],
    ),
    (
        "de",
        "{name} bestätigte den Termin in der Werkstatt am Donnerstag um 9 Uhr; der Ölwechsel ist inklusive.",
        ["Auto bis 9 Uhr bringen"],
        ["AUF-20331"],
    ),
)


def other_side(call: Call) -> str:
    return call.to_number if call.direction == Direction.OUTBOUND else call.from_number


# The language a call's counterpart speaks, by their number's country: a summary is in it.
LANGUAGE_OF_COUNTRY = {
    **dict.fromkeys(("ES", "MX", "AR", "CO", "CL", "PE"), "es"),
    **dict.fromkeys(("DE", "AT", "CH"), "de"),
}


def _references(rng, templates: list[str], taken: set[str]) -> list[str]:
    """The template's references with fresh digits: each demo call has its own, as real ones would."""
    fresh = []
    for template in templates:
        while True:
            value = re.sub(r"[0-9]", lambda _: str(rng.randint(0, 9)), template)
            if value not in taken:
                break
        taken.add(value)
        fresh.append(value)
    return fresh


def demo_transcript(rng, call: Call, *, country: str, name: str | None, taken: set[str] | None = None) -> Transcript:
    """A summary of ``call``, whose counterpart's number is of ``country``."""
    language = LANGUAGE_OF_COUNTRY.get(country, "en")
    language, summary, actions, references = rng.choice([t for t in TRANSCRIPTS if t[0] == language])
    references = _references(rng, references, taken if taken is not None else set())
    who = name or spoken.number(other_side(call))
    return Transcript(
        call=call,
        livemode=call.livemode,
        created=call.ended_at + timedelta(seconds=rng.randint(20, 90)),
        summary=summary.format(name=who),
        action_items=[item.format(name=who) for item in actions],
        reference_numbers=list(references),
        language=language,
    )
