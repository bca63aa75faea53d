"""The audit log (docs/spec.md 5.11, 8.5): one row per security-relevant action.

Rows are written in the same transaction as the action they record (so an
action that rolls back leaves no row, and a committed action always has one),
carry a stable ``event_type`` that clients and operators may match on, and keep
the actor (who did it) apart from the target (whose account, which client or
key it concerns).
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from apps.core.ids import id_default

EVENT_ID_PREFIX = "evt_"
new_event_id = id_default(EVENT_ID_PREFIX, "new_event_id")


class EventType(models.TextChoices):
    # Values are part of the contract once written: add new ones, never rename. The
    # column carries no choices, so adding a type here needs no migration.
    OAUTH_CONNECTION_CREATED = "oauth.connection.created", "Connected an app"
    OAUTH_CONNECTION_REVOKED = "oauth.connection.revoked", "Disconnected an app"
    OAUTH_TOKEN_REFRESHED = "oauth.token.refreshed", "App refreshed its access"
    API_KEY_CREATED = "api_key.created", "Created an API key"
    API_KEY_ROTATED = "api_key.rotated", "Rotated an API key"
    API_KEY_REVOKED = "api_key.revoked", "Revoked an API key"
    PASSWORD_RESET = "account.password_reset", "Reset the password by email"
    PASSWORD_CHANGED = "account.password_changed", "Changed the password"
    SHARING_UPDATED = "account.sharing_updated", "Changed sharing settings"
    SIGNED_IN = "account.signed_in", "Signed in"
    SIGN_IN_FAILED = "account.sign_in_failed", "Failed sign-in"
    # Sensitive actions an app or key took (recorded with audit_sensitive_action).
    MESSAGES_READ = "messages.read", "Read messages"
    CALL_PLACED = "call.placed", "Placed a call"
    CALL_ENDED = "call.ended", "Ended a call"
    TRANSCRIPT_REQUESTED = "transcript.requested", "Requested a transcript"
    WEBHOOK_ENDPOINT_CREATED = "webhook_endpoint.created", "Created a webhook endpoint"
    WEBHOOK_ENDPOINT_UPDATED = "webhook_endpoint.updated", "Changed a webhook endpoint"
    WEBHOOK_ENDPOINT_DELETED = "webhook_endpoint.deleted", "Deleted a webhook endpoint"
    WEBHOOK_ENDPOINT_SECRET_ROLLED = "webhook_endpoint.secret_rolled", "Re-keyed a webhook endpoint"
    WEBHOOK_ENDPOINT_OWNER_CHANGED = "webhook_endpoint.owner_changed", "Took over a webhook endpoint"
    # What the account holder decided for an app (apps/safeguards), on a page of the service.
    CONNECTION_ACTION_CONFIRMED = "oauth.connection.action_confirmed", "Confirmed an app's action"
    CONNECTION_ACTION_DECLINED = "oauth.connection.action_declined", "Declined an app's action"
    CONNECTION_ALLOWANCE_CHANGED = "oauth.connection.allowance_changed", "Changed an app's daily allowance"
    CONNECTION_ASK_FIRST_CHANGED = "oauth.connection.ask_first_changed", "Changed whether an app asks first"


# What an app or key did that its owner should be able to review on the app's own entry
# (docs/decisions/connections-and-audit.md): reading messages, calls, transcripts, webhooks.
SENSITIVE_EVENT_TYPES = frozenset(
    {
        EventType.MESSAGES_READ,
        EventType.CALL_PLACED,
        EventType.CALL_ENDED,
        EventType.TRANSCRIPT_REQUESTED,
        EventType.WEBHOOK_ENDPOINT_CREATED,
        EventType.WEBHOOK_ENDPOINT_UPDATED,
        EventType.WEBHOOK_ENDPOINT_DELETED,
        EventType.WEBHOOK_ENDPOINT_SECRET_ROLLED,
        EventType.WEBHOOK_ENDPOINT_OWNER_CHANGED,
    }
)

# The account holder's own decisions about an app: shown on its entry beside what it did.
DECISION_EVENT_TYPES = frozenset(
    {
        EventType.CONNECTION_ACTION_CONFIRMED,
        EventType.CONNECTION_ACTION_DECLINED,
        EventType.CONNECTION_ALLOWANCE_CHANGED,
        EventType.CONNECTION_ASK_FIRST_CHANGED,
    }
)

# The kinds Activity filters by: each a name for people and the event types it covers.
EVENT_KINDS: dict[str, tuple[str, frozenset]] = {
    "apps": (
        "App connections",
        frozenset(
            {
                EventType.OAUTH_CONNECTION_CREATED,
                EventType.OAUTH_CONNECTION_REVOKED,
                EventType.OAUTH_TOKEN_REFRESHED,
            }
        ),
    ),
    "sensitive": ("Sensitive actions by apps and keys", SENSITIVE_EVENT_TYPES),
    "decisions": ("Your confirmations and allowances for apps", DECISION_EVENT_TYPES),
    "keys": (
        "API keys",
        frozenset({EventType.API_KEY_CREATED, EventType.API_KEY_ROTATED, EventType.API_KEY_REVOKED}),
    ),
    "sign_ins": ("Sign-ins", frozenset({EventType.SIGNED_IN, EventType.SIGN_IN_FAILED})),
    "account": (
        "Password and settings",
        frozenset({EventType.PASSWORD_RESET, EventType.PASSWORD_CHANGED, EventType.SHARING_UPDATED}),
    ),
}


class ActorType(models.TextChoices):
    USER = "user", "User"  # the signed-in account holder (actor_id: usr_...)
    CLIENT = "client", "OAuth client"  # an app acting with its grant (actor_id: client id)
    SYSTEM = "system", "System"  # the service itself, e.g. a scheduled job
    API_KEY = "api_key", "API key"  # a personal API key acting for its owner (actor_id: key_...)


class AuditEvent(models.Model):
    id = models.CharField(primary_key=True, max_length=32, default=new_event_id, editable=False)
    event_type = models.CharField(max_length=64)
    # Target: the account whose log this is. Kept (nulled) if the account is
    # deleted, so the operator's trail survives. Not indexed alone: audit_user_created_idx
    # leads with it and serves every lookup by user, including the nulling on deletion.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="audit_events", db_index=False
    )
    actor_type = models.CharField(max_length=16, choices=ActorType.choices)
    actor_id = models.CharField(max_length=255, blank=True, default="")
    # Target detail: the OAuth client or the API key concerned, if any.
    client_id = models.CharField(max_length=255, blank=True, default="")
    key_id = models.CharField(max_length=32, blank=True, default="")
    ip_address = models.GenericIPAddressField(null=True, blank=True)
    request_id = models.CharField(max_length=32, blank=True, default="")
    data = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ("-created", "-id")
        indexes = [
            models.Index(fields=["user", "-created"], name="audit_user_created_idx"),
            # Activity filtered by one app, and each app's recent sensitive actions.
            models.Index(fields=["user", "client_id", "-created"], name="audit_user_client_idx"),
        ]

    def __str__(self):
        return f"{self.id} {self.event_type}"

    @property
    def label(self) -> str:
        """What happened, for people: the type's label (the raw value for a type this code no longer knows)."""
        try:
            return EventType(self.event_type).label
        except ValueError:
            return self.event_type

    @property
    def summary(self) -> str:
        """A sensitive action's own sentence ("read 2 messages of +44 20 7183 8750"), else ""."""
        data = self.data if isinstance(self.data, dict) else {}
        return str(data.get("summary") or "")
