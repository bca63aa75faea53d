"""Calls and their transcripts (docs/design.md, Phase 2).

Rows are written by the telephony core (outside this service), the admin and
``manage.py seed_demo``; this service reads them. A call stores the facts
(times, talk seconds, the rate applied and its increment); what it bills is
derived from them by ``apps.calls.pricing``, so a stored amount can never
disagree with the rule.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from apps.core.ids import id_default
from apps.core.models import AccountRow

CALL_PREFIX = "call_"
TRANSCRIPT_PREFIX = "trs_"
QUOTE_PREFIX = "quo_"
new_call_id = id_default(CALL_PREFIX, "new_call_id")
new_transcript_id = id_default(TRANSCRIPT_PREFIX, "new_transcript_id")
new_quote_id = id_default(QUOTE_PREFIX, "new_quote_id")


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


class EndReason(models.TextChoices):
    CALLEE_HUNG_UP = "callee_hung_up"
    YOU_HUNG_UP = "you_hung_up"
    ENDED_BY_REQUEST = "ended_by_request"
    YOU_DECLINED = "you_declined"
    YOU_DID_NOT_ANSWER = "you_did_not_answer"
    YOU_DID_NOT_PRESS_1 = "you_did_not_press_1"
    CALLEE_BUSY = "callee_busy"
    CALLEE_NO_ANSWER = "callee_no_answer"
    FAILED = "failed"
    TIME_LIMIT = "time_limit"


class Call(AccountRow):
    id = models.CharField(primary_key=True, max_length=32, default=new_call_id, editable=False)
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
    # Callback calls (placed from a quote); empty or null on calls the telephony core wrote.
    quote_id = models.CharField(max_length=32, blank=True, default="", db_default="")
    your_number = models.CharField(
        max_length=16, blank=True, default="", db_default="", help_text="The phone that rang first."
    )
    caller_id = models.CharField(max_length=16, blank=True, default="", db_default="", help_text="What the callee saw.")
    record = models.BooleanField(default=False, db_default=False)
    max_duration = models.PositiveIntegerField(null=True, blank=True, help_text="Seconds; the call ends then.")
    end_reason = models.CharField(max_length=20, choices=EndReason.choices, blank=True, default="", db_default="")
    ringing_you_at = models.DateTimeField(null=True, blank=True)
    ringing_at = models.DateTimeField(null=True, blank=True)
    # The key or connection that placed it (its daily cap), and what it counts against the caps:
    # its hold while live, its charge once ended.
    credential_id = models.CharField(max_length=255, blank=True, default="", db_default="")
    spend = models.BigIntegerField(
        default=0, db_default=0, help_text="Minor units: the hold while live, the charge once ended."
    )
    hold_id = models.CharField(max_length=32, blank=True, default="", db_default="")
    carrier = models.CharField(max_length=32, blank=True, default="", db_default="")
    carrier_ref = models.CharField(max_length=64, blank=True, default="", db_default="")

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
            # One live callback per account and mode (docs/design.md "Quotes and callback calls"): placements
            # are serialised on the balance row, and this index makes a second one impossible whatever the code path.
            models.UniqueConstraint(
                fields=["user", "livemode"],
                condition=models.Q(status__in=sorted(LIVE_STATUSES)) & ~models.Q(quote_id=""),
                name="calls_one_live_callback",
            ),
        ]

    def __str__(self):
        return self.id

    @property
    def is_live(self) -> bool:
        return self.status in LIVE_STATUSES


class TranscriptStatus(models.TextChoices):
    QUEUED = "queued"
    PROCESSING = "processing"
    COMPLETED = "completed"
    FAILED = "failed"


class TranscriptFailure(models.TextChoices):
    AUDIO_UNAVAILABLE = "audio_unavailable"
    TOO_SHORT = "too_short"
    PROVIDER_ERROR = "provider_error"


class Transcript(models.Model):
    """A call's transcript and summary. Requested ones (POST /v1/calls/{id}/transcript) go from queued
    to completed or failed through the carrier's events; the phase 2 rows read as completed."""

    id = models.CharField(primary_key=True, max_length=32, default=new_transcript_id, editable=False)
    call = models.OneToOneField(Call, on_delete=models.CASCADE, related_name="transcript")
    livemode = models.BooleanField(default=True)
    created = models.DateTimeField(default=timezone.now)
    summary = models.TextField(blank=True, default="")
    action_items = models.JSONField(default=list, blank=True)
    reference_numbers = models.JSONField(default=list, blank=True)
    language = models.CharField(max_length=16, help_text="BCP 47 tag, e.g. en or pt-BR.")
    status = models.CharField(
        max_length=16, choices=TranscriptStatus.choices, default=TranscriptStatus.COMPLETED, db_default="completed"
    )
    failure_reason = models.CharField(
        max_length=32, choices=TranscriptFailure.choices, blank=True, default="", db_default=""
    )
    # What it cost, in minor units: charged once at completion; 0 when it failed; null for phase 2's rows.
    amount = models.BigIntegerField(null=True, blank=True, default=None)
    currency = models.CharField(max_length=3, blank=True, default="", db_default="")
    completed_at = models.DateTimeField(null=True, blank=True, default=None)

    def __str__(self):
        return self.id


class Quote(models.Model):
    """The price and limits of one callback call, offered for 10 minutes and placed at most once."""

    id = models.CharField(primary_key=True, max_length=32, default=new_quote_id, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    livemode = models.BooleanField()
    created = models.DateTimeField()
    expires_at = models.DateTimeField()
    to_number = models.CharField("to", max_length=16)
    to_country = models.CharField(max_length=2, blank=True, default="")
    contact_id = models.CharField(max_length=32, blank=True, default="")
    label = models.CharField(max_length=100, blank=True, default="")
    your_number = models.CharField(max_length=16)
    caller_id = models.CharField(max_length=16)
    record = models.BooleanField(default=False)
    currency = models.CharField(max_length=3)
    per_minute_amount_decimal = models.DecimalField(max_digits=19, decimal_places=9)
    first_seconds = models.PositiveIntegerField()
    next_seconds = models.PositiveIntegerField()
    max_duration = models.PositiveIntegerField()
    max_amount = models.BigIntegerField()
    # The call placed from it; empty while open.
    call_id = models.CharField(max_length=32, blank=True, default="")

    class Meta:
        indexes = [models.Index(fields=["user", "livemode", "-created"], name="calls_quote_account_idx")]

    def __str__(self):
        return self.id
