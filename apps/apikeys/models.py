from django.conf import settings
from django.db import models
from django.utils import timezone

from apps.core.ids import id_default

LIVE_PREFIX = "sk_live_"
TEST_PREFIX = "sk_test_"
KEY_ID_PREFIX = "key_"
new_key_id = id_default(KEY_ID_PREFIX, "new_key_id")


class ApiKey(models.Model):
    """A personal API key. The secret itself is never stored, only its SHA-256."""

    LIVE, REVOKED, EXPIRED = "live", "revoked", "expired"

    id = models.CharField(primary_key=True, max_length=32, default=new_key_id, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100)
    scopes = models.JSONField(default=list)
    livemode = models.BooleanField(default=True)
    secret_digest = models.CharField(max_length=64, unique=True)
    secret_last4 = models.CharField(max_length=4)
    ip_allowlist = models.JSONField(default=list, blank=True)
    api_version = models.CharField(max_length=10)
    created = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "-created", "-id"], name="apikey_user_created")]
        ordering = ["-created", "-id"]

    def __str__(self):
        return f"{self.name} ({self.redacted})"

    @property
    def prefix(self) -> str:
        return LIVE_PREFIX if self.livemode else TEST_PREFIX

    @property
    def redacted(self) -> str:
        return f"{self.prefix}...{self.secret_last4}"

    def status_at(self, now) -> str:
        if self.revoked_at is not None:
            return self.REVOKED
        if self.expires_at <= now:
            return self.EXPIRED
        return self.LIVE

    @property
    def status(self) -> str:
        return self.status_at(timezone.now())
