from django.conf import settings
from django.db import models
from django.utils import timezone


class IdempotencyRecord(models.Model):
    """One use of an ``Idempotency-Key`` by one user and credential (docs/spec.md 4, 7.2).

    The row is claimed (inserted) before the operation runs; the unique
    constraint is what makes two concurrent requests with one key execute once.
    ``response_status`` stays null while the operation is in progress. Stored
    bodies never hold a secret (docs/design.md): views name the fields to blank.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # "session" for dashboard requests, else the Principal's credential_id.
    credential_id = models.CharField(max_length=255)
    key = models.CharField(max_length=255)
    method = models.CharField(max_length=10)
    path = models.TextField()
    request_digest = models.CharField(max_length=64)
    lock_token = models.CharField(max_length=32)
    locked_at = models.DateTimeField()
    created = models.DateTimeField(default=timezone.now, db_index=True)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    # The rendered JSON text: replayed byte for byte, and free of jsonb's limits
    # (PostgreSQL's jsonb refuses \u0000 in strings).
    response_body = models.TextField(blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "credential_id", "key"], name="idempotency_key_per_credential"),
        ]

    def __str__(self):
        return f"{self.method} {self.path} ({self.key})"

    @property
    def completed(self) -> bool:
        return self.response_status is not None
