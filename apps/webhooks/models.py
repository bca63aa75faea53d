"""Webhook endpoints, the events they are sent, and each delivery attempt.

An endpoint belongs to an account and a mode (any credential of the account with
``webhooks:manage`` manages it) and is owned by the credential that created it or last
changed its ``url`` or ``enabled_events`` (an API key's id, or an OAuth client's id for
the user's connection to that app): the owner's scopes bound what the endpoint receives,
and the owner's end disables it.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from apps.core.ids import id_default

ENDPOINT_PREFIX = "we_"
EVENT_PREFIX = "ev_"
DELIVERY_PREFIX = "dlv_"
new_endpoint_id = id_default(ENDPOINT_PREFIX, "new_endpoint_id")
new_event_id = id_default(EVENT_PREFIX, "new_event_id")
new_delivery_id = id_default(DELIVERY_PREFIX, "new_delivery_id")


class OwnerKind(models.TextChoices):
    API_KEY = "api_key", "API key"
    OAUTH = "oauth", "Connected app"


class DisabledReason(models.TextChoices):
    # Values are part of the contract once written: add new ones, never rename.
    REQUESTED = "requested", "Disabled by a request"
    CREDENTIAL_REVOKED = "credential_revoked", "The key or app connection that owns it ended"
    FAILING = "failing", "Every delivery failed for 5 days"
    GONE = "gone", "The receiver answered 410 Gone"


class WebhookEndpoint(models.Model):
    id = models.CharField(primary_key=True, max_length=32, default=new_endpoint_id, editable=False)
    # Not indexed alone: webhooks_endpoint_mode_idx leads with it.
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    livemode = models.BooleanField(default=True)
    url = models.CharField(max_length=2048)
    description = models.CharField(max_length=500, blank=True, default="")
    enabled_events = models.JSONField(default=list)
    enabled = models.BooleanField(default=True)
    disabled_reason = models.CharField(max_length=32, choices=DisabledReason.choices, blank=True, default="")
    api_version = models.CharField(max_length=32)
    # Fernet tokens (apps/webhooks/secrets.py): signing needs the secret itself.
    secret_encrypted = models.TextField()
    previous_secret_encrypted = models.TextField(blank=True, default="")
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True)
    owner_kind = models.CharField(max_length=16, choices=OwnerKind.choices)
    owner_credential_id = models.CharField(max_length=255)
    # The first failed attempt of the current run of failures; cleared by a success.
    failing_since = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [
            models.Index(fields=["user", "livemode", "-created", "-id"], name="webhooks_endpoint_mode_idx"),
            models.Index(fields=["user", "owner_kind", "owner_credential_id"], name="webhooks_endpoint_owner_idx"),
        ]

    def __str__(self):
        return f"{self.id} {self.url}"


class Event(models.Model):
    id = models.CharField(primary_key=True, max_length=32, default=new_event_id, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    livemode = models.BooleanField(default=True)
    type = models.CharField(max_length=64)
    api_version = models.CharField(max_length=32)
    # The object as its app's serializer writes it (thin for messages and transcripts).
    data = models.JSONField(default=dict)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["user", "livemode", "-created", "-id"], name="webhooks_event_mode_idx"),
            models.Index(fields=["created"], name="webhooks_event_created_idx"),
        ]

    def __str__(self):
        return f"{self.id} {self.type}"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Due or in flight"
    SUCCEEDED = "succeeded", "The receiver answered 2xx"
    FAILED = "failed", "The receiver failed or was not reached"
    SKIPPED = "skipped", "Not sent: the endpoint is disabled or may no longer receive this type"


class Delivery(models.Model):
    """One attempt to send one event to one endpoint; a failed one schedules the next attempt's row."""

    id = models.CharField(primary_key=True, max_length=32, default=new_delivery_id, editable=False)
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    attempt = models.PositiveSmallIntegerField(default=1)
    # A redelivery asked for by the account: once, outside the schedule.
    manual = models.BooleanField(default=False)
    status = models.CharField(max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    scheduled_at = models.DateTimeField(default=timezone.now)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    # How long the receiver took to answer (or to fail to); None until sent, and for a skipped attempt.
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True, default="")
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["endpoint", "-created", "-id"], name="webhooks_delivery_endpoint_idx")]
        constraints = [
            # A scheduled retry is written once, however often the attempt before it is recorded.
            models.UniqueConstraint(
                fields=["endpoint", "event", "attempt"],
                condition=models.Q(manual=False),
                name="webhooks_delivery_attempt_once",
            )
        ]

    def __str__(self):
        return f"{self.id} {self.event_id} -> {self.endpoint_id} #{self.attempt}"
