"""Calls and their transcripts (DESIGN, Phase 2).

Rows are written by the telephony core (outside this service), the admin and
``manage.py seed_demo``; this service reads them. A call stores the facts
(times, talk seconds, the rate applied and its increment); what it bills is
derived from them by ``apps.calls.pricing``, so a stored amount can never
disagree with the rule.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from apps.core.ids import new_id

CALL_PREFIX = "call_"
TRANSCRIPT_PREFIX = "trs_"


def new_call_id() -> str:
    return new_id(CALL_PREFIX)


def new_transcript_id() -> str:
    return new_id(TRANSCRIPT_PREFIX)


def default_currency() -> str:
    return settings.SERVICE_CURRENCY


class Direction(models.TextChoices):
    INBOUND = "inbound"
    OUTBOUND = "outbound"


class Status(models.TextChoices):
    QUEUED = "queued"
    # The callback flow rings the user's own phone first (docs/spec.md 3.5).
    RINGING_YOU = "ringing_you"
    RINGING = "ringing"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    BUSY = "busy"
    NO_ANSWER = "no_answer"
    FAILED = "failed"
    CANCELED = "canceled"


LIVE_STATUSES = frozenset({Status.QUEUED, Status.RINGING_YOU, Status.RINGING, Status.IN_PROGRESS})


class Call(models.Model):
    id = models.CharField(primary_key=True, max_length=32, default=new_call_id, editable=False)
    # No single-column index: every read starts with (user, livemode), served by the indexes below.
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    livemode = models.BooleanField(default=True)
    created = models.DateTimeField(default=timezone.now)
    direction = models.CharField(max_length=8, choices=Direction.choices)
    status = models.CharField(max_length=11, choices=Status.choices)
    # "from" is a Python keyword; the API names stay "from" and "to" (serializers.py).
    from_number = models.CharField("from", max_length=16, help_text="E.164 with +.")
    to_number = models.CharField("to", max_length=16, help_text="E.164 with +.")
    to_country = models.CharField(
        max_length=2, blank=True, default="", help_text="ISO 3166 alpha-2 of the called number."
    )
    # A contact id (ct_...) of the contacts app, kept as a plain reference: the
    # calls app does not depend on the contacts app (a contact may be deleted). Empty: none.
    contact_id = models.CharField(max_length=32, blank=True, default="")
    answered_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    duration = models.PositiveIntegerField(
        null=True, blank=True, help_text="Talk seconds once ended; empty while live (computed from answered_at)."
    )
    # The rate applied, as the rate deck had it when the call was placed: minor units a
    # minute (4.5 is 4.5 cents), and its billing increment in seconds.
    per_minute_amount_decimal = models.DecimalField(max_digits=19, decimal_places=9)
    first_seconds = models.PositiveIntegerField(default=60)
    next_seconds = models.PositiveIntegerField(default=60)
    currency = models.CharField(max_length=3, default=default_currency)

    class Meta:
        indexes = [
            # A page is one range scan of one index: newest first, by (created, id).
            models.Index(fields=["user", "livemode", "-created", "-id"], name="calls_call_page_idx"),
            models.Index(fields=["user", "livemode", "direction", "-created", "-id"], name="calls_call_direction_idx"),
            models.Index(fields=["user", "livemode", "status", "-created", "-id"], name="calls_call_status_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(first_seconds__gte=1) & models.Q(next_seconds__gte=1),
                name="calls_call_increment_positive",
            ),
            models.CheckConstraint(
                condition=models.Q(per_minute_amount_decimal__gte=0), name="calls_call_rate_positive"
            ),
        ]

    def __str__(self):
        return self.id

    @property
    def is_live(self) -> bool:
        return self.status in LIVE_STATUSES


class Transcript(models.Model):
    id = models.CharField(primary_key=True, max_length=32, default=new_transcript_id, editable=False)
    call = models.OneToOneField(Call, on_delete=models.CASCADE, related_name="transcript")
    livemode = models.BooleanField(default=True)
    created = models.DateTimeField(default=timezone.now)
    summary = models.TextField()
    action_items = models.JSONField(default=list, blank=True)
    reference_numbers = models.JSONField(default=list, blank=True)
    language = models.CharField(max_length=16, help_text="BCP 47 tag, e.g. en or pt-BR.")

    def __str__(self):
        return self.id
