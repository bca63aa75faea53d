"""Demo messages for ``manage.py seed_demo`` (apps/demo), in one mode.

On the account's first SMS-capable active number: a few messages in the last hour and
more over the last days, one-time codes among them (origin-bound and plain), from
banks, delivery services and people. The number's sharing switch is left as it is
(seed data leaves every switch off): the account holder turns it on. Deterministic for
a given ``rng`` and ``now``.
"""

from datetime import datetime, timedelta

from apps.numbers.selectors import sms_number_first

from .models import Message
from .services import message_build, messages_delete_all

# (sender, body); {code} is a fresh code, {day} a weekday.
CODES = (
    ("+12025550150", "Your Demo code is 123456.\n\n@demo.example #123456"),
    ("ACMEBANK", "Acme Bank: {code} is your verification code. We will never call you to ask for it."),
    ("+12025550161", "Your Shopfront sign-in code is {code}. It expires in 10 minutes.\n\n@shopfront.example #{code}"),
    ("NORTHAIR", "Northwind Air: use code {code} to confirm your booking change."),
    ("+12025550162", "{code} is your Parcelhub one-time passcode."),
)
OTHERS = (
    ("PARCELHUB", "Your parcel is out for delivery today between 13:00 and 15:00. Track: parcelhub.example/t/8K2Q"),
    ("+12025550171", "Running 10 minutes late, see you at the cafe"),
    ("ACMEBANK", "Acme Bank: a payment of $42.80 to City Parking was made with your card ending 4412."),
    ("+12025550172", "Can you call me back when you have a minute? It's about {day}."),
    ("CLINIC", "Reminder: your appointment is on {day} at 15:30. Reply C to confirm."),
    ("+12025550173", "Thanks for yesterday! Photos are in the shared album."),
    ("NORTHAIR", "Northwind Air: flight NW 2231 on {day} is on time. Gate opens 45 minutes before departure."),
    ("POWERCO", "Your electricity bill of $86.15 is ready. It will be paid by direct debit on the 28th."),
    ("+12025550174", "Ich bin morgen ab 9 Uhr im Büro, ruf einfach an."),
    ("+12025550175", "¿Quedamos el {day} para cenar? Reservo para las 21:00."),
)
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
# Live: recent and older counts; test mode: a smaller set.
COUNTS = {True: (4, 24), False: (2, 8)}


def seed(*, user, livemode: bool, rng, now: datetime) -> list[Message]:
    """Replace the account's messages in ``livemode``; none when it has no SMS-capable number."""
    number = sms_number_first(user=user, livemode=livemode)
    recent, older = COUNTS[livemode]
    moments = sorted(
        [now - timedelta(seconds=rng.randint(60, 55 * 60)) for _ in range(recent)]
        + [now - timedelta(seconds=rng.randint(2 * 3600, 12 * 86400)) for _ in range(older)]
    )
    rows = []
    if number is not None:
        for position, at in enumerate(moments):
            # Codes among them: the newest is one (what an assistant is asked for), then about one in four.
            with_code = position == len(moments) - 1 or rng.random() < 0.25
            sender, body = rng.choice(CODES if with_code else OTHERS)
            body = body.format(code=f"{rng.randint(0, 999999):06d}", day=rng.choice(DAYS))
            rows.append(message_build(number=number, sender=sender, body=body, at=at.replace(microsecond=0)))
    messages_delete_all(user=user, livemode=livemode)
    Message.objects.bulk_create(rows)
    return rows
