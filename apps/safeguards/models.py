"""What the user decided for each connected app (docs/decisions/user-decides.md).

A connection is the pair (user, OAuth client id), as the audit log names it; the rows
keep the client id as text, so this app imports no credential issuer and the apps that
place calls or aim webhooks may ask it.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from apps.core.ids import id_default


class ConnectionRules(models.Model):
    """The daily allowance and the "ask me first" switch of one connection, chosen at consent
    and changed on Connected apps. A connection without a row was made before these rules
    existed: it keeps the credential cap of the settings and is not asked first."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    client_id = models.CharField(max_length=255)
    # Minor units of SERVICE_CURRENCY a day (UTC), one of ALLOWANCE_CHOICES; the settings' cap still applies.
    daily_allowance = models.BigIntegerField()
    ask_first = models.BooleanField()
    updated = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "client_id"], name="safeguards_rules_connection")]

    def __str__(self):
        return f"{self.client_id} of {self.user_id}"


new_decision_id = id_default("cnf_", "new_decision_id")


class Decision(models.Model):
    """The user's yes or no, on a page of the service, to one action of one connection: placing one
    quote, or creating or re-aiming one webhook endpoint. The id comes from the link the user opened,
    so each link is decided once; a quote is decided once whatever link; a yes to a webhook write is
    used once."""

    CONFIRMED, DECLINED = "confirmed", "declined"
    CALL, WEBHOOK = "call", "webhook_endpoint"

    id = models.CharField(primary_key=True, max_length=32, default=new_decision_id, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    client_id = models.CharField(max_length=255)
    action = models.CharField(max_length=24, choices=((CALL, "Place a call"), (WEBHOOK, "Aim a webhook endpoint")))
    # The quote's id, or a digest of the endpoint write (apps/safeguards/gates.py).
    subject = models.CharField(max_length=64)
    decision = models.CharField(max_length=16, choices=((CONFIRMED, "Confirmed"), (DECLINED, "Declined")))
    decided_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # A quote is decided once for a connection, whichever of its links the user opened.
            models.UniqueConstraint(
                fields=["user", "client_id", "subject"],
                condition=models.Q(action="call"),
                name="safeguards_call_decided_once",
            )
        ]
        indexes = [models.Index(fields=["user", "client_id", "subject"], name="safeguards_decision_idx")]

    def __str__(self):
        return self.id
