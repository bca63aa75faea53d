"""The API key record (docs/design.md) and the create request."""

from django.utils import timezone
from rest_framework import serializers

from apps.core.errors import ApiError
from apps.core.timefmt import unix_seconds
from apps.credentials.scopes import ALL_SCOPES

from .models import ApiKey

CREATE_FIELDS = ("name", "scopes", "expires_in_days", "ip_allowlist", "livemode")


class ApiKeySerializer(serializers.Serializer):
    """Documents the record; ``to_representation`` builds it with one clock reading."""

    object = serializers.ChoiceField(choices=["api_key"])
    id = serializers.CharField(help_text="Key id, prefix key_.")
    name = serializers.CharField()
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=list(ALL_SCOPES)))
    livemode = serializers.BooleanField(help_text="false for sk_test_ keys.")
    redacted = serializers.CharField(help_text="Prefix and last four characters, e.g. sk_live_...abcd.")
    ip_allowlist = serializers.ListField(child=serializers.CharField())
    status = serializers.ChoiceField(choices=[ApiKey.LIVE, ApiKey.REVOKED, ApiKey.EXPIRED])
    created = serializers.IntegerField(help_text="Unix seconds.")
    expires_at = serializers.IntegerField(help_text="Unix seconds.")
    revoked_at = serializers.IntegerField(allow_null=True, help_text="Unix seconds.")
    last_used_at = serializers.IntegerField(allow_null=True, help_text="Unix seconds; updated at most once a minute.")

    def to_representation(self, key: ApiKey) -> dict:
        now = self.context.get("now") or timezone.now()
        return {
            "object": "api_key",
            "id": key.id,
            "name": key.name,
            "scopes": list(key.scopes),
            "livemode": key.livemode,
            "redacted": key.redacted,
            "ip_allowlist": list(key.ip_allowlist),
            "status": key.status_at(now),
            "created": unix_seconds(key.created),
            "expires_at": unix_seconds(key.expires_at),
            "revoked_at": unix_seconds(key.revoked_at),
            "last_used_at": unix_seconds(key.last_used_at),
        }


class ApiKeyWithSecretSerializer(ApiKeySerializer):
    """Create and rotate: the one response that carries the full secret."""

    secret = serializers.CharField(allow_null=True, help_text="The full key, shown once; null on an idempotent replay.")

    def to_representation(self, key: ApiKey) -> dict:
        return {**super().to_representation(key), "secret": self.context["secret"]}


class ApiKeyCreateSerializer(serializers.Serializer):
    """Documents the create body. Values are validated by the service, which
    raises the spec's own codes (invalid_name, invalid_scopes, ...)."""

    name = serializers.CharField(max_length=100)
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=list(ALL_SCOPES)))
    expires_in_days = serializers.IntegerField(min_value=1, max_value=365, required=False, default=90)
    ip_allowlist = serializers.ListField(child=serializers.CharField(), required=False)
    livemode = serializers.BooleanField(required=False, default=True)


def create_arguments(data) -> dict:
    """The body as keyword arguments of ``apikey_create``; shape errors only."""
    if not isinstance(data, dict):
        raise ApiError("invalid_body", "The request body must be a JSON object.")
    for field in data:
        if field not in CREATE_FIELDS:
            raise ApiError("invalid_request", f"Unknown field {str(field)[:40]!r}.", param=str(field)[:100])
    args = {
        "name": data.get("name"),
        "scopes": data.get("scopes"),
        "expires_in_days": data.get("expires_in_days"),
        "ip_allowlist": data.get("ip_allowlist"),
    }
    if "livemode" in data:
        args["livemode"] = data["livemode"]
    return args
