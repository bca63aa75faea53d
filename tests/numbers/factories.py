"""Numbers and caller IDs for tests, written through the services (country derived, one default)."""

from datetime import timedelta

from django.utils import timezone

from apps.numbers.services import caller_id_create, number_create


def make_number(user, number="+442071838750", *, livemode=True, created=None, **fields):
    fields.setdefault("type", "local")
    fields.setdefault("renews_at", timezone.now() + timedelta(days=20))
    return number_create(user=user, livemode=livemode, number=number, created=created or timezone.now(), **fields)


def make_numbers(user, count, *, livemode=True, **fields):
    """``count`` numbers a second apart, oldest first (+44 20 7946 00NN)."""
    start = timezone.now() - timedelta(days=1)
    return [
        make_number(user, f"+4420794600{n:02d}", livemode=livemode, created=start + timedelta(seconds=n), **fields)
        for n in range(count)
    ]


def make_caller_id(user, number="+14155550100", *, livemode=True, default=False, created=None, **fields):
    return caller_id_create(
        user=user, livemode=livemode, number=number, default=default, created=created or timezone.now(), **fields
    )
