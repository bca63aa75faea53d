"""Calls and transcripts for tests: a completed outbound call unless told otherwise."""

from datetime import timedelta
from decimal import Decimal

import factory
from django.apps import apps
from django.utils import timezone

from apps.calls.models import Call, Transcript
from tests.support.factories import UserFactory


class CallFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Call

    user = factory.SubFactory(UserFactory)
    livemode = True
    # Each call a minute older than the one before, so "newest first" has one order.
    created = factory.Sequence(lambda n: timezone.now() - timedelta(days=1) - timedelta(minutes=n))
    direction = "outbound"
    status = "completed"
    from_number = "+14155550100"
    to_number = "+4915112345678"
    to_country = "DE"
    answered_at = factory.LazyAttribute(lambda c: c.created + timedelta(seconds=12))
    ended_at = factory.LazyAttribute(lambda c: c.answered_at + timedelta(seconds=c.duration or 0))
    duration = 88
    per_minute_amount_decimal = Decimal("4.5")
    first_seconds = 60
    next_seconds = 60
    currency = "usd"


def live_call(**fields) -> Call:
    """A call in progress, answered ``talked`` seconds ago."""
    talked = fields.pop("talked", 125)
    now = timezone.now()
    return CallFactory(
        status="in_progress",
        created=now - timedelta(seconds=talked + 10),
        answered_at=now - timedelta(seconds=talked),
        ended_at=None,
        duration=None,
        **fields,
    )


def unanswered_call(status="ringing", **fields) -> Call:
    ended = status not in ("queued", "ringing", "ringing_you")
    now = timezone.now()
    return CallFactory(
        status=status,
        answered_at=None,
        ended_at=now if ended else None,
        duration=0 if ended else None,
        **fields,
    )


class TranscriptFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Transcript

    call = factory.SubFactory(CallFactory)
    livemode = factory.LazyAttribute(lambda t: t.call.livemode)
    created = factory.LazyAttribute(lambda t: t.call.ended_at or t.call.created)
    summary = "Ana confirmed the delivery for Friday morning and asked for a call back if it slips."
    action_items = factory.LazyFunction(lambda: ["Call Ana back if the delivery slips"])
    reference_numbers = factory.LazyFunction(lambda: ["ORD-48213"])
    language = "en"


def make_contact(user, name="Ana Lopez", livemode=True):
    """A contact row of the contacts app, made through the app registry as the calls app reads it."""
    contact_model = apps.get_model("contacts", "Contact")
    return contact_model.objects.create(user=user, livemode=livemode, name=name)
