"""The simulator's magic numbers (docs/design.md "The carrier boundary", like Twilio's test numbers): one
table, read by the simulated carrier that plays it and by the docs page that lists it.

Each script is a list of ``Step(after, kind)``: ``after`` seconds after the previous step,
an event of the call family. Your number plays first (it rings, you answer and press 1 or
not); the destination's script follows only when you pressed 1. ``TIME_LIMIT`` steps wait
for the call's own ``max_duration`` instead of a fixed time.
"""

from dataclasses import dataclass

from . import events as ev


@dataclass(frozen=True)
class Step:
    after: int | None  # seconds after the previous step; None: the call's max_duration
    kind: str


@dataclass(frozen=True)
class Behaviour:
    number: str | None  # E.164; None for "any other"
    says: str
    steps: tuple[Step, ...] = ()
    blocked: bool = False  # refused at the quote (422 destination_not_allowed)


DESTINATIONS: tuple[Behaviour, ...] = (
    Behaviour(
        "+12025550100",
        "answers in 5 s, talks 30 s, hangs up",
        (Step(5, ev.CALLEE_ANSWERED), Step(30, ev.CALLEE_HUNG_UP)),
    ),
    Behaviour("+12025550101", "busy", (Step(3, ev.CALLEE_BUSY),)),
    Behaviour("+12025550102", "rings 45 s, no answer", (Step(45, ev.CALLEE_NO_ANSWER),)),
    Behaviour("+12025550103", "unroutable: failed", (Step(1, ev.UNROUTABLE),)),
    Behaviour(
        "+12025550104",
        "answers, stays until ended or max_duration",
        (Step(5, ev.CALLEE_ANSWERED), Step(None, ev.TIME_LIMIT)),
    ),
    Behaviour("+12025550105", "blocked: 422 at quote", blocked=True),
)
ANY_DESTINATION = Behaviour(None, "as +1 202 555 0100", DESTINATIONS[0].steps)

YOUR_NUMBERS: tuple[Behaviour, ...] = (
    Behaviour("+12025550190", "does not answer", (Step(30, ev.YOU_NO_ANSWER),)),
    Behaviour("+12025550191", "answers, never presses 1", (Step(17, ev.YOU_DID_NOT_PRESS_1),)),
    Behaviour("+12025550192", "declines", (Step(3, ev.YOU_DECLINED),)),
)
ANY_YOUR_NUMBER = Behaviour(None, "answers in 2 s, presses 1 in 2 s", (Step(4, ev.YOU_PRESSED_1),))

# Transcriptions of recorded calls start (queued becomes processing) after this many seconds and
# complete after TRANSCRIPTION_SECONDS; to this number they fail; a recording with no answered
# talk (a call nobody answered) fails as too short.
TRANSCRIPTION_STARTS_SECONDS = 1
TRANSCRIPTION_SECONDS = 5
TRANSCRIPTION_FAILS_TO = "+12025550106"
TRANSCRIPTION_FAILURE = "audio_unavailable"
TRANSCRIPTION_TOO_SHORT = "too_short"


def transcript_text(*, subject: str, to: str) -> dict:
    """What a simulated transcription reports: a summary, action items and a reference number of
    its own (from the transcript's id, so no two transcripts share one)."""
    return {
        "summary": f"You called {to} to confirm the appointment; it is confirmed, and they will send the details.",
        "action_items": ["Check the confirmation they send", "Add the appointment to your calendar"],
        "reference_numbers": [f"SIM-{subject[-8:].upper()}"],
    }


# An inbound SMS from this sender carries this body (the docs page /docs/calls shows both).
CODE_SENDER = "+12025550150"
CODE_BODY = "Your Demo code is 123456.\n\n@demo.example #123456"


def destination(number: str) -> Behaviour:
    return next((b for b in DESTINATIONS if b.number == number), ANY_DESTINATION)


def your_number(number: str) -> Behaviour:
    return next((b for b in YOUR_NUMBERS if b.number == number), ANY_YOUR_NUMBER)


def timeline(*, your: str, to: str, max_duration: int) -> list[tuple[int, str]]:
    """(seconds after placing, event kind) of everything the simulator will report for one call."""
    steps = list(your_number(your).steps)
    if steps[-1].kind == ev.YOU_PRESSED_1:
        steps += destination(to).steps
    played, at, answered = [], 0, None
    for step in steps:
        at += max_duration if step.after is None else step.after
        if answered is not None and at > answered + max_duration:
            # Nobody talks past the call's time limit: the carrier ends it then.
            played.append((answered + max_duration, ev.TIME_LIMIT))
            break
        played.append((at, step.kind))
        if step.kind == ev.CALLEE_ANSWERED:
            answered = at
    return played
