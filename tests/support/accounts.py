"""Shared by the password reset and password change tests: what a new password must end."""

from django.test import Client

from apps.apikeys.models import ApiKey
from apps.audit.models import AuditEvent, EventType
from apps.oauth.connections.revocation import PASSWORD_MESSAGE
from tests.support.oauth import me, refresh

NEW_PASSWORD = "a-brand-new-passphrase-42"


def password_events():
    """Entries of password events only (creating the fixtures' API keys is audited too)."""
    return list(AuditEvent.objects.filter(event_type__in=[EventType.PASSWORD_RESET, EventType.PASSWORD_CHANGED]))


def assert_all_revoked(credentials, message=PASSWORD_MESSAGE):
    for tokens in credentials["tokens"]:
        response = me(tokens["access_token"])
        assert response.status_code == 401
        assert response.json()["error"]["message"] == message
    app_a, app_b = credentials["apps"]
    for app, tokens in zip((app_a, app_b), credentials["tokens"], strict=True):
        response = refresh(Client(), app, tokens["refresh_token"])
        assert response.status_code == 400
        assert response.json()["error"] == "invalid_grant"
    for secret in credentials["keys"]:
        assert me(secret).status_code == 401
    assert not ApiKey.objects.filter(user=credentials["user"], revoked_at__isnull=True).exists()


def assert_stranger_untouched(credentials):
    assert me(credentials["stranger_token"]["access_token"]).status_code == 200
    assert me(credentials["stranger_key"]).status_code == 200
